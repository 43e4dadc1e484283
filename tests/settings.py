"""Settings of the test run: the development configuration, as `make run` has it.

DEBUG is off unless set (config/settings/base.py), and without DEBUG the settings ask for a real
SECRET_KEY and turn on the HTTPS redirect and secure cookies. The suite runs against the
development configuration instead, whatever the shell exports (`make test`, a plain
`.venv/bin/pytest`, CI's second pass), so it sets DEBUG=1 for this process before the project's
settings are read; the production defaults themselves stay as they are. pytest-django still
runs each test with settings.DEBUG off, as Django's test runner does.
"""

import os
import re

os.environ["DEBUG"] = "1"


def _redis_database_of_this_worker(url: str, worker: str) -> str:
    """pytest-xdist's workers must not share a Redis database: every test empties its cache,
    and the broker's queues are per database. Worker gwN uses REDIS_URL's database + N (mod
    16), so a run with REDIS_URL=redis://host:6379/12 on two cores uses databases 12 and 13."""
    match = re.fullmatch(r"(redis://[^/]+)(?:/(\d+))?", url)
    if not match or not worker.startswith("gw"):
        return url
    database = (int(match.group(2) or 0) + int(worker[2:])) % 16
    return f"{match.group(1)}/{database}"


if os.environ.get("REDIS_URL") and os.environ.get("PYTEST_XDIST_WORKER"):
    # before the project's settings read it; the processes a test starts inherit it
    os.environ["REDIS_URL"] = _redis_database_of_this_worker(
        os.environ["REDIS_URL"], os.environ["PYTEST_XDIST_WORKER"]
    )

from config.settings import *  # noqa: E402, F403 - after the environment above is set
from config.settings import DATABASES  # noqa: E402

# The debug log's writer thread (debugtools.handler) writes committed rows on its own connection,
# outside each test's transaction: off for the suite, on in the tests of tests/debugtools.
DEBUGTOOLS_RECORD_LOGS = False

# Hashing a password the production way costs a tenth of a second; the suite makes thousands.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A test's commits need not survive a crash of the server: not waiting for the WAL flush
    # makes the transactional tests' commits and flushes cheaper.
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    if "options" in _options:
        _options["options"] += " -c synchronous_commit=off"
