import pytest

from common.tasks import ping
from config.celery import app


@pytest.mark.sqlite_only  # the embedded default: no broker
def test_without_a_broker_tasks_run_eagerly(settings):
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
    assert ping.delay().get() == "pong"


@pytest.mark.redis
def test_a_task_runs_on_a_real_worker_over_redis():
    from celery.contrib.testing.worker import start_worker

    assert app.conf.task_always_eager is False
    assert app.conf.broker_url.startswith("redis://")
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        result = ping.delay()
        assert result.get(timeout=30) == "pong"


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_a_worker_keeps_its_database_connection_between_tasks_as_the_web_does():
    """Celery's Django fix-up closes nothing (the reuse count is never reached); Django's own
    rule runs around each task: a usable connection stays (its prepared statements with it),
    one an error left unusable or one past CONN_MAX_AGE is closed and the next task opens
    another."""
    from celery.fixups.django import DjangoWorkerFixup
    from django.db import connection

    from config.celery import _close_old_connections

    def task_ran() -> None:
        fixup.on_task_prerun(sender=ping)
        _close_old_connections(sender=ping, task=ping)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        fixup.on_task_postrun(sender=ping)
        _close_old_connections(sender=ping, task=ping)

    fixup = DjangoWorkerFixup(app)
    connection.close()  # a fresh one: the worker's may be older than CONN_MAX_AGE by now
    connection.ensure_connection()
    kept = connection.connection
    for _ in range(3):
        task_ran()
        assert connection.connection is kept

    connection.connection.close()  # the server went away under it
    connection.errors_occurred = True
    _close_old_connections(sender=ping, task=ping)
    assert connection.connection is None
    task_ran()
    assert connection.connection is not None
    assert connection.connection is not kept

    renewed = connection.connection
    connection.close_at = 0  # older than CONN_MAX_AGE
    task_ran()
    assert connection.connection is not renewed


@pytest.mark.django_db(transaction=True)
def test_an_eager_task_or_a_transaction_around_a_task_keeps_the_connection(monkeypatch):
    from django.db import connection, transaction

    from config.celery import _close_old_connections

    closed = []
    connection.ensure_connection()
    monkeypatch.setattr(connection, "close_if_unusable_or_obsolete", lambda: closed.append(1))

    class Eager:
        class request:  # Celery's attribute name
            is_eager = True

    _close_old_connections(sender=Eager, task=Eager)
    assert closed == []
    with transaction.atomic():
        _close_old_connections(sender=ping, task=ping)
    assert closed == []
    _close_old_connections(sender=ping, task=ping)
    assert closed == [1]
