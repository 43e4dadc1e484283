"""Settings of the Celery worker subprocesses that tests/webhooks/test_worker.py starts.

The project's settings, with the broker's visibility timeout cut from an hour to two seconds,
so that a message whose worker was killed is handed to the next worker within seconds (in
production the redelivery of a killed worker's message waits for the visibility timeout, and
the beat task re-dispatches a stalled delivery after 5 minutes).
"""

from config.settings import *  # noqa: F403

CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,  # noqa: F405
    "visibility_timeout": 2,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
    "unacked_mutex_expire": 5,
}
