"""The request id in the Celery worker's main process (only the worker imports this module).

A task runs under the id its message carries (common.observability, `task_prerun`), but some
of its lines are written by the worker's main process, outside the run: "received", and with
the prefork pool a hard time limit or a lost worker process. The task class of the project
(config/celery.py) names the two classes below, so those lines carry the id too.
"""

from __future__ import annotations

from functools import wraps

from celery.worker.request import Request as _Request
from celery.worker.strategy import default as _default_strategy

from common.observability import bound, message_request_id


def strategy(task, app, consumer, **kwargs):
    """Celery's default handling of a task's message, under the message's request id."""
    handle = _default_strategy(task, app, consumer, **kwargs)

    @wraps(handle)
    def task_message_handler(message, *args, **options):
        with bound(message_request_id(getattr(message, "headers", None))):
            return handle(message, *args, **options)

    return task_message_handler


def _under_the_request_id(method):
    @wraps(method)
    def wrapper(self, *args, **kwargs):
        with bound(message_request_id(self.request_dict)):
            return method(self, *args, **kwargs)

    return wrapper


class Request(_Request):
    """Celery's request, reporting a task's end (time limit, lost worker, retry, failure) in the
    main process under the message's request id."""

    on_timeout = _under_the_request_id(_Request.on_timeout)
    on_failure = _under_the_request_id(_Request.on_failure)
    on_retry = _under_the_request_id(_Request.on_retry)
    on_accepted = _under_the_request_id(_Request.on_accepted)
