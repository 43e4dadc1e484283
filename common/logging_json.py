"""The one log format of every process: the web (LOGGING in config/settings/observability.py),
gunicorn's access and error logs (common.logging_gunicorn), the Celery worker and its beat
(below).

A line is a JSON object (python-json-logger) with `time`, `level`, `logger`, `message` and
`request_id` (common.observability), plus the record's extra fields; LOG_FORMAT=plain (the
default with DEBUG) makes it text with the request id in brackets. Both are chosen here so that
the processes cannot drift apart.
"""

from __future__ import annotations

import logging
import logging.config
import os

from pythonjsonlogger.json import JsonFormatter as _JsonFormatter

FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s"
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}
PLAIN = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
FORMATS = ("json", "plain")

# What is kept of the context Celery puts on its task reports (`data`: received, succeeded,
# failed, retried), under our names. The rest is left out: the task's arguments and return
# value can hold personal data (an e-mail's recipients and body), and the traceback text
# repeats `exc_info`.
CELERY_FIELDS = {"name": "task", "id": "task_id", "runtime": "runtime", "eta": "eta"}


def log_format(debug: bool) -> str:
    """LOG_FORMAT: `json`, or `plain`; unset, plain with DEBUG and JSON without."""
    from django.core.exceptions import ImproperlyConfigured

    raw = os.environ.get("LOG_FORMAT", "").strip().lower()
    value = raw or ("plain" if debug else "json")
    if value not in FORMATS:
        raise ImproperlyConfigured(f"LOG_FORMAT must be 'json' or 'plain'; got {raw!r}")
    return value


def json_formatter_config() -> dict:
    """The JSON formatter's entry in a logging dictConfig."""
    return {
        "()": "common.logging_json.JsonFormatter",
        "fmt": FIELDS,
        "rename_fields": dict(RENAMED),
        "timestamp": False,
    }


class JsonFormatter(_JsonFormatter):
    """python-json-logger's formatter, with Celery's task context reduced to CELERY_FIELDS."""

    def __init__(self, fmt: str = FIELDS, *args, rename_fields=None, timestamp=False, **kwargs):
        super().__init__(
            fmt,
            *args,
            rename_fields=dict(RENAMED) if rename_fields is None else rename_fields,
            timestamp=timestamp,
            **kwargs,
        )

    def add_fields(self, log_data, record, message_dict) -> None:
        super().add_fields(log_data, record, message_dict)
        if not record.name.startswith("celery"):
            return
        context = log_data.pop("data", None)
        if isinstance(context, dict):
            for key, name in CELERY_FIELDS.items():
                if context.get(key) is not None:
                    log_data[name] = context[key]


def formatter(kind: str) -> logging.Formatter:
    """A formatter of LOG_FORMAT `kind`, for a process configured outside LOGGING (gunicorn)."""
    return JsonFormatter() if kind == "json" else logging.Formatter(PLAIN)


# --- Celery: the worker and the beat log through LOGGING ---------------------------------------


def configure_celery_logging(loglevel=None, **kwargs) -> None:
    """Celery's `setup_logging` receiver (config/celery.py), run by `celery worker` and
    `celery beat` before they log anything. Connecting it makes Celery leave logging alone: no
    plain-text handler of its own replaces the root's. The process gets the project's LOGGING
    (JSON lines with the request id, as the web's) at LOG_LEVEL; `--loglevel` only lowers the
    root's level, for a debugging session."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)
    root = logging.getLogger()
    if isinstance(loglevel, int) and loglevel < root.level:
        root.setLevel(loglevel)
