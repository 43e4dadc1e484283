"""gunicorn's configuration for production (docs/deploy.md): `gunicorn -c config/gunicorn_conf.py
config.wsgi:application`. Bind address and worker count come from the environment."""

import os

from common import gunicorn_errors, logging_gunicorn, logging_json
from config.env import env_bool

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# The longest request line gunicorn reads (its maximum; its default, 4094, answered a long
# query string with an HTML 414). The application refuses a path and query string longer than
# common.middleware.MAX_URI_LENGTH (8000) itself, with a JSON 414 in the namespace's shape.
limit_request_line = 8190
# What gunicorn refuses itself (a request line over that, headers too large) answers JSON.
gunicorn_errors.install()
# Logs in the application's format (common.logging_gunicorn): gunicorn's own lines on stderr,
# and one access line per request on stdout (method, path without its query string, status,
# duration, bytes, addresses, user agent and the answer's request id). GUNICORN_ACCESS_LOG=0
# turns the access log off.
accesslog = "-" if env_bool("GUNICORN_ACCESS_LOG", True) else None
errorlog = "-"
# json or plain (LOG_FORMAT; unset: plain with DEBUG), as the application's lines.
logging_gunicorn.Logger.log_format = logging_json.log_format(env_bool("DEBUG", False))
logger_class = logging_gunicorn.Logger


def child_exit(server, worker):
    """With PROMETHEUS_MULTIPROC_DIR set, a worker that exits stops counting in /metrics."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
