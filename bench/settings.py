"""Settings of the benchmark server: the project's, plus the floor view's route."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.bench_urls"
