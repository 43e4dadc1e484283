"""Emporion settings, read from the environment.

Every variable has an embedded default so that `make run` (which sets DEBUG=1) needs nothing
else: an SQLite file, eager Celery (no broker), local-memory cache and console e-mail. DEBUG is
off unless set, so a process started without it is a production one: it needs SECRET_KEY and
ALLOWED_HOSTS, and `check --deploy` (common.checks) asks for JWT_SIGNING_KEY and REDIS_URL too.
See docs/operations.md for the full list.

One module per concern, gathered here in order (`DJANGO_SETTINGS_MODULE=config.settings`). A
module reads what it needs of an earlier one by name (`from config.settings.base import DEBUG`);
only this aggregation imports with `*`. The order is the order of their checks: a process with
more than one setting wrong stops on the first of them.
"""

# isort: off
from config.settings.base import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.cache_and_celery import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.api import *  # noqa: F403
from config.settings.licensing import *  # noqa: F403
from config.settings.integrations import *  # noqa: F403
from config.settings.store import *  # noqa: F403
from config.settings.erp import *  # noqa: F403
from config.settings.mail import *  # noqa: F403
from config.settings.storage import *  # noqa: F403
from config.settings.observability import *  # noqa: F403
from config.settings.theme import *  # noqa: F403
from config.settings.debugtools import *  # noqa: F403
# isort: on
