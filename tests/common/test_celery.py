import os

import pytest

from common.tasks import ping
from config.celery import app


def test_without_a_broker_tasks_run_eagerly(settings):
    if os.environ.get("REDIS_URL"):
        pytest.skip("REDIS_URL is set: tasks go through the broker")
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
    assert ping.delay().get() == "pong"


@pytest.mark.redis
@pytest.mark.skipif(
    not os.environ.get("REDIS_URL"),
    reason="REDIS_URL is not set: there is no broker to send through",
)
def test_a_task_runs_on_a_real_worker_over_redis():
    from celery.contrib.testing.worker import start_worker

    assert app.conf.task_always_eager is False
    assert app.conf.broker_url.startswith("redis://")
    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
        result = ping.delay()
        assert result.get(timeout=30) == "pong"
