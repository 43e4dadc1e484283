"""Settings of the store benchmark's server: the project's, plus the floor route."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.store_urls"
