"""Settings of the Celery worker that tests/outages/test_worker_redis_outage.py starts.

The project's settings, with the broker's visibility timeout cut from an hour to seven seconds
(longer than the first webhook retry's countdown, 5 s + 20%, so a countdown the worker holds is
not handed out twice while it waits): a message the worker held when Redis went away is back in
its queue within seconds of Redis returning, as it is within the hour in production.
"""

from config.settings import *  # noqa: F403

CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,  # noqa: F405
    "visibility_timeout": 7,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
    "unacked_mutex_expire": 5,
}
