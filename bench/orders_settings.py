"""Settings of the orders benchmark's server: the project's, plus the floor route."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.orders_urls"
