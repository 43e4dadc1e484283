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
