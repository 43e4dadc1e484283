"""Settings of the benchmark server (gunicorn, DEBUG off): the project's, plus the floors.

The harness (bench/harness/) sets the environment: DATABASE_URL (the bench's PostgreSQL
database), REDIS_URL (cache, throttles and broker on Redis), a fixed SECRET_KEY (tokens seeded
once stay valid across runs) and BENCH_NAME (the cache's key prefix, flushed before each run).
"""

import os

from config.settings import *  # noqa: F403
from config.settings import (
    CACHES,
    CELERY_BROKER_TRANSPORT_OPTIONS,
    INSTALLED_APPS,
    REST_FRAMEWORK,
)

INSTALLED_APPS = [*INSTALLED_APPS, "bench"]
ROOT_URLCONF = "bench.urls"

# Throttles count (every request pays its Redis round trip) but never refuse under load.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(
        REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "1000000000/min"
    ),
}
CACHES["default"]["KEY_PREFIX"] = f"bench_{os.environ.get('BENCH_NAME', 'bench')}"
# Each bench's tasks on queues of its own (harness.queue_prefix; kombu's global_keyprefix).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "global_keyprefix": os.environ.get("BENCH_QUEUE_PREFIX", "benchq_bench:"),
}
