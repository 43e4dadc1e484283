"""gunicorn's configuration for production (docs/deploy.md): `gunicorn -c config/gunicorn_conf.py
config.wsgi:application`. Bind address and worker count come from the environment."""

import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "3"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# A request id and JSON logs are the application's; gunicorn's access log adds nothing.
accesslog = None
errorlog = "-"


def child_exit(server, worker):
    """With PROMETHEUS_MULTIPROC_DIR set, a worker that exits stops counting in /metrics."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
