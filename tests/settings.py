"""Settings of the test run: the development configuration, as `make run` has it.

DEBUG is off unless set (config/settings.py), and without DEBUG the settings ask for a real
SECRET_KEY and turn on the HTTPS redirect and secure cookies. The suite runs against the
development configuration instead, whatever the shell exports (`make test`, a plain
`.venv/bin/pytest`, CI's second pass), so it sets DEBUG=1 for this process before the project's
settings are read; the production defaults themselves stay as they are. pytest-django still
runs each test with settings.DEBUG off, as Django's test runner does.
"""

import os

os.environ["DEBUG"] = "1"

from config.settings import *  # noqa: F403

# The debug log's writer thread (debugtools.handler) writes committed rows on its own connection,
# outside each test's transaction: off for the suite, on in the tests of tests/debugtools.
DEBUGTOOLS_RECORD_LOGS = False
