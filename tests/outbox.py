"""Test helpers for the outbox (common.outbox): a broker that refuses every publish."""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

from kombu.exceptions import OperationalError

from common import breaker
from config.celery import app as celery_app

REFUSED = OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


@contextmanager
def broker_up():
    """Tasks go to a broker (not eager) that takes every publish and runs nothing: the mock
    records each publish's arguments and options (a worker's part is the test's to play)."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        with mock.patch("celery.app.task.Task.apply_async") as publish:
            yield publish
    finally:
        celery_app.conf.task_always_eager = previous
        breaker.reset_all()


@contextmanager
def broker_down():
    """Tasks go to a broker (not eager) and every publish fails as an unreachable one does."""
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        with mock.patch("celery.app.task.Task.apply_async", side_effect=REFUSED) as publish:
            yield publish
    finally:
        celery_app.conf.task_always_eager = previous
        breaker.reset_all()
