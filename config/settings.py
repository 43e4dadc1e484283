"""Emporion settings, read from the environment.

Every variable has an embedded default so that `make run` (which sets DEBUG=1) needs nothing
else: an SQLite file, eager Celery (no broker), local-memory cache and console e-mail. DEBUG is
off unless set, so a process started without it is a production one: it needs SECRET_KEY and
ALLOWED_HOSTS, and `check --deploy` (common.checks) asks for JWT_SIGNING_KEY and REDIS_URL too.
See docs/operations.md for the full list.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

from common import logging_json
from common.db import sqlite_options
from common.observability import init_sentry
from config.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

# --- Core -------------------------------------------------------------------------------------

# Off unless set: development (`make run`, the tests) sets DEBUG=1 explicitly.
DEBUG = env_bool("DEBUG", False)

DEVELOPMENT_SECRET_KEY = "django-insecure-emporion-development-only-key-never-use-in-production"  # noqa: S105 - refused without DEBUG
SECRET_KEY = env_str("SECRET_KEY", DEVELOPMENT_SECRET_KEY)
if not DEBUG and SECRET_KEY in ("", DEVELOPMENT_SECRET_KEY):
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is unset or the development key: set SECRET_KEY to a long "
        "random value (for example: python3 -c 'import secrets; print(secrets.token_urlsafe(64))')."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_simplejwt.token_blacklist",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "common",
    "accounts",
    "licensing",
    "clients",
    "webhooks",
]

# The Commerce Store API (ec/v1): a package of sub-apps, one per domain (store/).
INSTALLED_APPS += [
    "store.access",
    "store.settings",
    "store.media",
    "store.catalog",
    "store.reviews",
    "store.docs",
    "store.inventory",
    "store.customers",
    "store.orders",
    "store.shipping",
    "store.courier",
    "store.tax",
    "store.coupons",
    "store.cart",
    "store.payments",
    "store.checkout",
    "store.emails",
    "store.reports",
    # Marketplaces (issue 16, point 5): orders and settings; product feeds and category mapping.
    "store.marketplace",
    "store.feeds",
    # The ERP (issue 14): a package of apps behind the Business-tier licence gate (erp/).
    "erp.core",
    "erp.inventory",
    "erp.invoicing",
    "erp.purchasing",
    # ERP part 2 (issue 15).
    "erp.accounting",
    "erp.crm",
    "erp.hr",
    # The theme namespace and the core debug namespace (issue 16).
    "theme.storefront",
    "theme.builder",
    "theme.modules",
    "theme.mcp",
    "debugtools",
    # Cross-origin access (issue 17): the middleware below answers preflights.
    "corsheaders",
    # Store webhooks (issue 17, point 4): the routes bridging the store and the webhooks app.
    "integrations.store_webhooks",
]

MIDDLEWARE = [
    # Outermost: the request id (X-Request-ID, on every log record and task) and the metrics
    # (every answer timed, whatever refused it); then CORS, before anything that can answer.
    "common.observability.RequestIdMiddleware",
    "common.metrics.MetricsMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "common.middleware.ApiErrorMiddleware",
    "common.middleware.UnstorableInputMiddleware",
    "common.middleware.RateLimitHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "common.audit.AuditActorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
# A refused CSRF check under an API prefix answers JSON in that namespace's style.
CSRF_FAILURE_VIEW = "common.views.csrf_failure"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    try:
        _db = dj_database_url.parse(
            DATABASE_URL,
            conn_max_age=env_int("DB_CONN_MAX_AGE", 60, minimum=0),
            conn_health_checks=True,
        )
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL is not a valid database URL: {exc}") from None
    if _db["ENGINE"] == "django.db.backends.postgresql":
        # An unreachable server fails a request (503 service_unavailable) in seconds, not
        # after the operating system's TCP timeout. 2 s is the least libpq and psycopg honour
        # (1 counts as 2).
        _db.setdefault("OPTIONS", {}).setdefault(
            "connect_timeout", env_int("DATABASE_CONNECT_TIMEOUT", 2, minimum=1)
        )
        # Connection pooling (docs/deploy.md): DB_POOL_MAX_SIZE > 0 gives each process a
        # psycopg pool of that size (connections are then never kept per thread:
        # CONN_MAX_AGE 0); DB_PGBOUNCER=1 is for a PgBouncer in transaction mode in front of
        # the server: no server-side cursors (a cursor would outlive its transaction's
        # server connection) and no startup `options` (PgBouncer refuses them).
        DB_POOL_MAX_SIZE = env_int("DB_POOL_MAX_SIZE", 0, minimum=0)
        DB_PGBOUNCER = env_bool("DB_PGBOUNCER", False)
        if DB_POOL_MAX_SIZE and DB_PGBOUNCER:
            raise ImproperlyConfigured(
                "Set DB_POOL_MAX_SIZE or DB_PGBOUNCER, not both: PgBouncer is the pool."
            )
        if DB_POOL_MAX_SIZE:
            _db["CONN_MAX_AGE"] = 0
            # The pool checks a connection as it hands it out (an empty query) and replaces
            # one the server dropped (a restart, a failover) instead of failing the request.
            _db["CONN_HEALTH_CHECKS"] = True
            _db["OPTIONS"]["pool"] = {
                "min_size": min(env_int("DB_POOL_MIN_SIZE", 2, minimum=0), DB_POOL_MAX_SIZE),
                "max_size": DB_POOL_MAX_SIZE,
                # How long a request waits for a connection before answering 503: while the
                # server is unreachable none comes, so this is what every request costs.
                "timeout": env_int("DB_POOL_TIMEOUT", 2, minimum=1),
                # A failing reconnection backs off (1, 2, 4 ... s) and is given up after this
                # long; the next request starts a fresh one at once, so the pool reconnects
                # within seconds of the server's return, not after a back-off of minutes.
                "reconnect_timeout": env_int("DB_POOL_RECONNECT_TIMEOUT", 5, minimum=1),
            }
        if DB_PGBOUNCER:
            _db["DISABLE_SERVER_SIDE_CURSORS"] = True
        else:
            # The web's queries are short: PostgreSQL's JIT compiles a plan for tens of ms
            # that the query then saves nothing with (measured on the catalog's lists at
            # 50,000 products: +28 ms). A DATABASE_URL giving its own `options` keeps them.
            _db["OPTIONS"].setdefault("options", "-c jit=off")
            # Parameters bound on the server: psycopg then prepares a query the connection
            # has run PG_PREPARE_THRESHOLD times, and PostgreSQL reuses its plan instead of
            # planning it again on every request (the hot paths' joins plan for longer than
            # they run). Off with DB_SERVER_SIDE_BINDING=0 (and always behind PgBouncer, whose
            # transaction mode cannot keep a connection's prepared statements).
            if env_bool("DB_SERVER_SIDE_BINDING", True):
                _db["OPTIONS"].setdefault("server_side_binding", True)
                _db["OPTIONS"].setdefault(
                    "prepare_threshold", env_int("PG_PREPARE_THRESHOLD", 5, minimum=0)
                )
    elif _db["ENGINE"] == "django.db.backends.sqlite3":
        # The embedded default's options, with the URL's own merged in (common.db).
        _db["OPTIONS"] = sqlite_options(_db.get("OPTIONS"))
else:
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    _db = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": VAR_DIR / "db.sqlite3",
        # WAL, a busy timeout and IMMEDIATE transactions: writers queue, never "locked".
        "OPTIONS": sqlite_options(),
    }
DATABASES = {"default": _db}
# /healthz waits this long for the database's answer (common.health): a healthy server answers
# in milliseconds, and the whole probe must stay within a load balancer's timeout (2 s and
# less), a new process's first request included.
DATABASE_HEALTH_TIMEOUT_MS = env_int("DATABASE_HEALTH_TIMEOUT_MS", 750, minimum=1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache, Celery ----------------------------------------------------------------------------

# Redis (cache and broker) is best-effort; the database is the truth. Redis answers in well under
# a millisecond, so an answer slower than these timeouts means it is down or frozen: the cache
# then answers misses and drops writes, and publishing falls back to the outbox (common.outbox).
# After a failure each is skipped for REDIS_BREAKER_SECONDS, so an outage costs one timeout per
# process every few seconds, not one per call.
REDIS_URL = env_str("REDIS_URL")
CACHE_SOCKET_TIMEOUT = env_int("CACHE_SOCKET_TIMEOUT_MS", 250, minimum=10) / 1000
BROKER_SOCKET_TIMEOUT = env_int("BROKER_SOCKET_TIMEOUT_MS", 500, minimum=10) / 1000
REDIS_BREAKER_SECONDS = env_int("REDIS_BREAKER_SECONDS", 5, minimum=1)
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "common.cache.ResilientRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "emporion",
            "OPTIONS": {
                "socket_connect_timeout": CACHE_SOCKET_TIMEOUT,
                "socket_timeout": CACHE_SOCKET_TIMEOUT,
                "breaker_seconds": REDIS_BREAKER_SECONDS,
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 300, minimum=1)
# No countdown may be longer than this; long waits live in the database instead.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3600,
    "socket_connect_timeout": BROKER_SOCKET_TIMEOUT,
    "socket_timeout": BROKER_SOCKET_TIMEOUT,
}
CELERY_BROKER_CONNECTION_TIMEOUT = BROKER_SOCKET_TIMEOUT
# An outbox row sent and not acknowledged by a worker this long after it was due is sent again
# (the broker lost its message: Redis restarted empty). Longer than the visibility timeout, so
# that a message Redis still holds is redelivered by Redis first (common.outbox).
OUTBOX_REDELIVER_SECONDS = env_int(
    "OUTBOX_REDELIVER_SECONDS",
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] + 300,
    minimum=1,
)
# A worker outlives Redis going down, freezing and coming back (docs/deploy.md, "Faults"): it
# reconnects for as long as it takes, at start too (the default gives up after 100 attempts, some
# 45 minutes, and exits), and lets a task running at the loss finish rather than killing it (its
# message, not acknowledged, runs again after the visibility timeout: every task is idempotent).
# common.celery_fixes guards the kombu fault that made a worker holding messages exit.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = BROKER_SOCKET_TIMEOUT
CELERY_REDIS_SOCKET_TIMEOUT = BROKER_SOCKET_TIMEOUT
# A publish retries once at once, then gives up: the message waits in the outbox, which the
# beat drains (common.outbox), so a request never waits on a dead broker.
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.1,
    "interval_max": 0.1,
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_TIMEZONE = "UTC"
# Queues by kind (issue 17): a worker started without -Q consumes them all (`make worker`); a
# scaled deployment runs workers per queue (docs/deploy.md), so a burst of webhooks cannot
# delay stock releases or e-mails. Tasks not named here go to `celery`.
CELERY_QUEUE_NAMES = ("celery", "webhooks", "stock", "email", "erp")
CELERY_TASK_QUEUES = [Queue(name) for name in CELERY_QUEUE_NAMES]
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "webhooks.*": {"queue": "webhooks"},
    "store_orders.*": {"queue": "stock"},
    "store_checkout.*": {"queue": "stock"},
    "store_coupons.*": {"queue": "stock"},
    "common.send_email": {"queue": "email"},
    "store_emails.*": {"queue": "email"},
    "erp_*": {"queue": "erp"},
}
# The beat runs wherever `--beat` is given (every `make worker`) but schedules on one process
# only: the holder of a lock in Redis (common.beat), renewed every few seconds, taken over by
# another beat within BEAT_LOCK_SECONDS when its holder dies. No schedule file on local disk.
BEAT_LOCK_SECONDS = env_int("BEAT_LOCK_SECONDS", 30, minimum=5)
if REDIS_URL:
    CELERY_BEAT_SCHEDULER = "common.beat:LockedScheduler"
    CELERY_BEAT_MAX_LOOP_INTERVAL = 5

# --- Auth -------------------------------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 8},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# One-time e-mail tokens.
EMAIL_VERIFICATION_TOKEN_HOURS = env_int("EMAIL_VERIFICATION_TOKEN_HOURS", 48, minimum=1)
PASSWORD_RESET_TOKEN_MINUTES = env_int("PASSWORD_RESET_TOKEN_MINUTES", 60, minimum=1)
# This site's public address: every link in e-mails, feeds and API answers starts with it
# (common.links), never with the host a request came in on. `make run` sets it from its HOST and
# PORT; a value that cannot start a link stops every command (check common.E005).
FRONTEND_URL = env_str("FRONTEND_URL", "http://127.0.0.1:8000").strip().rstrip("/")

API_KEYS_PER_ACCOUNT = env_int("API_KEYS_PER_ACCOUNT", 20, minimum=1)

# Failed log-ins, counted in the database per account (the e-mail address as typed, whether or
# not an account has it) and per client address, shared by the portal, the checkout and the
# admin log-in: LIMIT failures within WINDOW lock the account (or the address) for LOCKOUT
# minutes, doubled at each further lock up to LOCKOUT_MAX. A successful log-in resets the
# account's count. See accounts.services (login limits).
LOGIN_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
LOGIN_ADDRESS_FAILURE_LIMIT = env_int("LOGIN_ADDRESS_FAILURE_LIMIT", 50, minimum=1)
LOGIN_FAILURE_WINDOW = timedelta(minutes=env_int("LOGIN_FAILURE_WINDOW_MINUTES", 15, minimum=1))
LOGIN_LOCKOUT = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
LOGIN_LOCKOUT_MAX = timedelta(hours=env_int("LOGIN_LOCKOUT_MAX_HOURS", 24, minimum=1))

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=30),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=env_int("JWT_REFRESH_TOKEN_DAYS", 14, minimum=1)),
    "ROTATE_REFRESH_TOKENS": True,
    "BLACKLIST_AFTER_ROTATION": True,
    "UPDATE_LAST_LOGIN": True,
    # Tokens carry a digest of the password hash: changing the password ends every session.
    "CHECK_REVOKE_TOKEN": True,
    "ALGORITHM": "HS256",
    # Unset: SECRET_KEY, fine in development; `check --deploy` asks production for a key of its
    # own (common.checks).
    "SIGNING_KEY": env_str("JWT_SIGNING_KEY") or SECRET_KEY,
    "ISSUER": "emporion",
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_FIELD": "id",
    "USER_ID_CLAIM": "user_id",
}

# --- REST framework ---------------------------------------------------------------------------


def _rate(scope: str, default: str) -> str:
    return env_str(f"THROTTLE_RATE_{scope.upper()}", default)


THROTTLE_DEFAULTS = {
    "login": "5/min",
    "register": "5/min",
    "forgot_password": "3/min",
    "resend_verification": "3/min",
    "refresh": "10/min",
    "verify_email": "10/min",
    "reset_password": "10/min",
}

# Licensing: the public licence API used by installed copies (spec: Limits), counted per client
# address. `download_file` (fetching a signed download URL) is ours, not the spec's.
THROTTLE_DEFAULTS |= {
    "license_activate": "10/min",
    "license_deactivate": "10/min",
    "license_verify": "30/min",
    "update_check": "30/min",
    "update_info": "30/min",
    "download": "5/min",
    "component_list": "30/min",
    "component_available": "30/min",
    "component_check": "30/min",
    "component_download": "100/min",
    "download_file": "60/min",
}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "accounts.authentication.ApiKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["common.api.parsers.JSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "common.api.negotiation.JSONOnlyContentNegotiation",
    "EXCEPTION_HANDLER": "common.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        scope: _rate(scope, rate) for scope, rate in THROTTLE_DEFAULTS.items()
    },
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DATETIME_FORMAT": "iso-8601",
    "COERCE_DECIMAL_TO_STRING": True,
}

# Error body styles by path prefix (the longest wins); the portal style serves /api/.
API_ERROR_STYLES: dict[str, str] = {}

IDEMPOTENCY_KEY_TTL = timedelta(hours=24)
# An in-progress request older than this is taken to have died; its key may be reused.
IDEMPOTENCY_LOCK_TIMEOUT = timedelta(minutes=5)

# `<id:...>` path ids (common.api.fields.IdPathConverter): a bigint from 1.
ID_PATH_CONVERTER_OVERRIDES = {"id": {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}}
SPECTACULAR_SETTINGS = {
    "TITLE": "Emporion License Portal API",
    "DESCRIPTION": (
        "The License Portal (accounts, licences, sub-clients, webhooks) and the public licence "
        "API used by installed copies. Errors are JSON objects with a `detail` string, a "
        "machine-readable `code` and, for invalid fields, an `errors` object."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "SCHEMA_PATH_PREFIX_TRIM": False,
    "PREPROCESSING_HOOKS": ["common.api.schema.only_portal_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.rate_limit_headers",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PATH_CONVERTER_OVERRIDES": ID_PATH_CONVERTER_OVERRIDES,
}

# --- Licensing --------------------------------------------------------------------------------

# Licences a developer account may hold (nfr excluded); resellers and agencies are unlimited.
LICENSE_LIMIT_DEVELOPER = env_int("LICENSE_LIMIT_DEVELOPER", 10, minimum=0)
# Ed25519 key that signs verify answers: base64 of the 32-byte seed, or a PKCS#8 PEM. Unset: a
# stable key derived from SECRET_KEY (see docs/decisions/licensing.md).
LICENSE_SIGNING_KEY = env_str("LICENSE_SIGNING_KEY")
# How long an installed copy may trust a signed verify answer offline.
LICENSE_VERIFY_CACHE_HOURS = env_int("LICENSE_VERIFY_CACHE_HOURS", 72, minimum=0)
# Lifetime of a signed download URL.
LICENSE_DOWNLOAD_URL_SECONDS = env_int("LICENSE_DOWNLOAD_URL_SECONDS", 300, minimum=10)
LICENSE_CURRENCY = env_str("LICENSE_CURRENCY", "USD").strip().upper()
if len(LICENSE_CURRENCY) != 3 or not LICENSE_CURRENCY.isalpha():
    raise ImproperlyConfigured(
        f"LICENSE_CURRENCY must be a three-letter ISO 4217 code; got {LICENSE_CURRENCY!r}"
    )
# Renewal payments: "sandbox" (a local checkout page with a Pay button) or "stripe".
PAYMENT_PROVIDER = env_str("PAYMENT_PROVIDER", "sandbox").strip().lower()
if PAYMENT_PROVIDER not in ("sandbox", "stripe"):
    raise ImproperlyConfigured(
        f"PAYMENT_PROVIDER must be 'sandbox' or 'stripe'; got {PAYMENT_PROVIDER!r}"
    )
STRIPE_SECRET_KEY = env_str("STRIPE_SECRET_KEY")
if PAYMENT_PROVIDER == "stripe" and not STRIPE_SECRET_KEY:
    raise ImproperlyConfigured("PAYMENT_PROVIDER is 'stripe' but STRIPE_SECRET_KEY is unset.")
STRIPE_API_BASE = env_str("STRIPE_API_BASE", "https://api.stripe.com").rstrip("/")
PAYMENT_PROVIDER_TIMEOUT = env_int("PAYMENT_PROVIDER_TIMEOUT", 10, minimum=1)
# Sandbox providers move no money: a payer who presses Pay gets what they pay for for free.
# They work in development (DEBUG) and wherever this is set explicitly (a staging site);
# elsewhere a payment through a sandbox is refused (503 payments_not_configured).
PAYMENT_SANDBOX_ALLOWED = env_bool("PAYMENT_SANDBOX_ALLOWED", DEBUG)
# The real gateways' API addresses (empty: the provider's own, PayPal's by the config's mode)
# and the time one call may take; an unreachable provider answers 502.
PAYMENT_STRIPE_API_BASE = env_str("PAYMENT_STRIPE_API_BASE")
PAYMENT_PAYPAL_API_BASE = env_str("PAYMENT_PAYPAL_API_BASE")
PAYMENT_HTTP_TIMEOUT = env_int("PAYMENT_HTTP_TIMEOUT", 20, minimum=1)
# Where the payer lands after paying (order_code and transaction_id are added to the query).
# Unset: the sandbox shows its own receipt page; Stripe returns to FRONTEND_URL/renewals/complete.
RENEWAL_RETURN_URL = env_str("RENEWAL_RETURN_URL")
# One OpenAPI enum per choice set, whatever the field's name (tier, min_tier, old_tier, ...).
SPECTACULAR_SETTINGS.setdefault("ENUM_NAME_OVERRIDES", {}).update(
    {
        "LicenseTierEnum": "licensing.models.Tier",
        "LicenseStatusEnum": "licensing.models.LicenseStatus",
        "LicenseSourceEnum": "licensing.models.LicenseSource",
    }
)

# --- URLs and namespaces: the spec's {prefix}, REST root and namespace names ------------------

REST_ROOT = env_str("REST_ROOT", "rest").strip("/")
STORE_PREFIX = "ec"
THEME_NS = env_str("THEME_NS", "theme").strip("/")
CORE_NS = env_str("CORE_NS", "core").strip("/")
NONCE_HEADER = "X-Platform-Nonce"
WEBHOOK_USER_AGENT = "Emporion-Webhooks/1.0"

# --- Webhooks ---------------------------------------------------------------------------------

# Development and tests only: lets every outbound call (common.net: webhooks, the marketplace,
# the providers) use http:// URLs and loopback addresses (every other private or reserved range
# stays blocked); WEBHOOKS_ALLOW_PRIVATE_URLS is its older name. `check --deploy` warns while
# either is on.
OUTBOUND_ALLOW_PRIVATE_URLS = env_bool("OUTBOUND_ALLOW_PRIVATE_URLS", False)
WEBHOOKS_ALLOW_PRIVATE_URLS = env_bool("WEBHOOKS_ALLOW_PRIVATE_URLS", False)
# A worker's claim on a delivery it is sending lasts this long; a delivery whose task never
# claimed it (lost with a killed worker) is dispatched again by the beat after this long.
WEBHOOK_CLAIM_LEASE_SECONDS = env_int("WEBHOOK_CLAIM_LEASE_SECONDS", 60, minimum=15)
WEBHOOK_REDISPATCH_SECONDS = env_int("WEBHOOK_REDISPATCH_SECONDS", 300, minimum=10)
# At most this many deliveries in flight to one webhook across every worker (webhooks.inflight,
# counted in Redis; no cap while Redis is unreachable): a slow receiver holds that many
# workers, never all of them. A batch over the cap waits a few seconds in the queue.
WEBHOOK_MAX_IN_FLIGHT = env_int("WEBHOOK_MAX_IN_FLIGHT", 4, minimum=1)
# Test pings and redeliveries send at once; limited per account.
THROTTLE_DEFAULTS["webhook_send"] = "30/min"
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["webhook_send"] = _rate("webhook_send", "30/min")

# --- Store (ec/v1) -----------------------------------------------------------------------------

# Store errors: {"code", "message", "data": {"status", "params"?}}; invalid parameters are 400.
API_ERROR_STYLES[f"/{REST_ROOT}/"] = "store.common.errors.StoreErrorStyle"
# Public product lists (and facet counts) without a search term are cached this long; every
# catalog write invalidates them at once, so this only bounds memory.
STORE_CATALOG_CACHE_SECONDS = env_int("STORE_CATALOG_CACHE_SECONDS", 600, minimum=0)
# Uploaded images: a hard ceiling above the store setting media.max_upload_size_mb.
STORE_MEDIA_MAX_UPLOAD_MB = env_int("STORE_MEDIA_MAX_UPLOAD_MB", 64, minimum=1)
STORE_MEDIA_MAX_PIXELS = env_int("STORE_MEDIA_MAX_PIXELS", 50_000_000, minimum=1)
# Extension points of the spec's Events table: {"ec_search_results": ["pkg.module.fn"], ...}.
STORE_HOOKS: dict[str, list[str]] = {}
# The ec/v1 OpenAPI description: its own drf-spectacular settings (the portal's stay portal-only).
STORE_SPECTACULAR_SETTINGS = {
    "TITLE": "Emporion Commerce Store API (ec/v1)",
    "DESCRIPTION": (
        "The store's REST API. Errors are `{code, message, data: {status}}`; invalid "
        "parameters answer 400 and are named in `data.params`. Authenticate with the session "
        f"cookie plus the `{NONCE_HEADER}` header (same origin) or with an application "
        "password over HTTP Basic (external clients)."
    ),
    "VERSION": "1.0.0",
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/ec/v1",
    "SCHEMA_PATH_PREFIX_TRIM": True,
    "SERVERS": [{"url": f"/{REST_ROOT}/ec/v1"}],
    "PATH_CONVERTER_OVERRIDES": ID_PATH_CONVERTER_OVERRIDES,
    "PREPROCESSING_HOOKS": ["store.common.schema.only_store_paths"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.api.schema.rate_limit_headers",
    ],
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "ProductStatusEnum": "store.catalog.choices.ProductStatus",
        "ProductTypeEnum": "store.catalog.choices.ProductType",
        "StockStatusEnum": "store.catalog.choices.StockStatus",
        "ProductConditionEnum": "store.catalog.choices.ProductCondition",
        "AttributeTypeEnum": "store.catalog.choices.AttributeType",
        "ReviewStatusEnum": "store.reviews.models.ReviewStatus",
    },
}
# Orders (issue 6): the enums of the order, payment and shipment statuses.
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        f"{name}Enum": f"store.orders.choices.{name}"
        for name in (
            "OrderStatus",
            "PaymentStatus",
            "FulfillmentStatus",
            "PaymentKind",
            "PaymentRecordStatus",
            "ShipmentStatus",
            "HistoryField",
            "OrderSource",
        )
    }
)

# Cart, shipping, tax and coupons (issue 7). Coupon codes can be guessed: applying and validating
# them is rate limited per client address (or account).
THROTTLE_DEFAULTS["coupon_validate"] = "30/min"
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["coupon_validate"] = _rate("coupon_validate", "30/min")
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "DiscountTypeEnum": "store.coupons.models.DiscountType",
        "ShippingMethodTypeEnum": "store.shipping.models.MethodType",
    }
)
# Customers (issue 12): the saved addresses' type (billing, shipping).
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]["AddressTypeEnum"] = (
    "store.customers.models.AddressType"
)

# Checkout and payments (issue 7, second part): completing a checkout, order-received lookups,
# e-mail checks (they tell whether an account exists) and the checkout's log-in and sign-up get
# their own stricter limits, per client address (or account).
THROTTLE_DEFAULTS |= {
    "checkout_complete": "10/min",
    "order_received": "20/min",
    "checkout_check_email": "10/min",
    "checkout_login": "5/min",
    "checkout_create_account": "5/min",
}
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] |= {
    scope: _rate(scope, THROTTLE_DEFAULTS[scope])
    for scope in (
        "checkout_complete",
        "order_received",
        "checkout_check_email",
        "checkout_login",
        "checkout_create_account",
    )
}
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {"CheckoutStatusEnum": "store.checkout.models.CheckoutStatus"}
)
# Stock hoarding (issue 10): starting a checkout holds stock, so it is limited per client address
# (or account); every other cart write (items, clear, address, shipping method, coupon removal,
# checkout updates and validation) shares a looser limit. Coupon apply keeps coupon_validate.
THROTTLE_DEFAULTS |= {"checkout_start": "20/hour", "cart_write": "60/min"}
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] |= {
    scope: _rate(scope, THROTTLE_DEFAULTS[scope]) for scope in ("checkout_start", "cart_write")
}

# Store e-mails (issue 12): a test e-mail goes to any address, so staff send a few an hour.
THROTTLE_DEFAULTS |= {"email_test": "10/hour"}
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["email_test"] = _rate("email_test", "10/hour")

STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "EmailTypeEnum": "store.emails.types.EMAIL_TYPE_CHOICES",
        "OrderEmailTypeEnum": "store.emails.types.ORDER_EMAIL_TYPE_CHOICES",
    }
)
# Issue 13: two fields named "provider" (a payment provider, a courier).
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "PaymentProviderEnum": "store.payments.models.Provider",
        "CourierProviderEnum": "store.courier.providers.PROVIDER_NAMES",
    }
)
# ERP invoicing (issue 14): its statuses and the tax authorities.
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "InvoiceStatusEnum": "erp.invoicing.choices.InvoiceStatus",
        "InvoiceTransmissionStatusEnum": "erp.invoicing.choices.TransmissionStatus",
        "InvoicingProviderEnum": "erp.invoicing.choices.Provider",
        "InvoiceDocumentTypeEnum": "erp.invoicing.choices.DocumentType",
        "InvoiceVatExemptionEnum": "erp.invoicing.choices.VatExemption",
        "InvoiceVatCategoryEnum": "erp.invoicing.choices.VatCategory",
        "InvoicePaymentMethodEnum": "erp.invoicing.choices.PaymentMethod",
    }
)
# ERP HR and the labor registry (issue 15).
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "HrEmploymentTypeEnum": "erp.hr.choices.EmploymentType",
        "HrLeaveStatusEnum": "erp.hr.choices.LeaveStatus",
        "HrDocumentKindEnum": "erp.hr.choices.DocumentKind",
        "HrTerminationReasonEnum": "erp.hr.choices.TerminationReason",
        "LaborSubmissionKindEnum": "erp.hr.choices.SubmissionKind",
        "LaborSubmissionStatusEnum": "erp.hr.choices.SubmissionStatus",
        "LaborRegistryProviderEnum": "erp.hr.choices.RegistryProvider",
        "LaborErganiEnvironmentEnum": "erp.hr.choices.ErganiEnvironment",
    }
)

# The ERP (issue 14): the store's licence (a licence of this service) that lets it run the ERP
# before any POST /erp/activate names one, and how long the gate trusts its last verdict.
ERP_LICENSE_KEY = env_str("ERP_LICENSE_KEY")
ERP_LICENSE_CACHE_SECONDS = env_int("ERP_LICENSE_CACHE_SECONDS", 60, minimum=1)
# ERP invoicing: Greece's myDATA (AADE) REST API, its development and production base URLs (the
# settings route picks one) and the time one call may take.
MYDATA_DEV_URL = env_str("MYDATA_DEV_URL", "https://mydataapidev.aade.gr")
MYDATA_PROD_URL = env_str("MYDATA_PROD_URL", "https://mydatapi.aade.gr/myDATA")
MYDATA_HTTP_TIMEOUT = env_int("MYDATA_HTTP_TIMEOUT", 20, minimum=1)
# ERP HR (issue 15): employee documents live outside MEDIA_ROOT (never served publicly; read
# through the authorised download routes), at most this many MB, of a type checked by content;
# a day's time entries add up to at most this many hours. The labor registry: Greece's ERGANI
# API, its trial and production base URLs (the settings route picks one) and one call's time.
HR_DOCUMENTS_ROOT = Path(env_str("HR_DOCUMENTS_ROOT", str(VAR_DIR / "private" / "hr-documents")))
HR_DOCUMENT_MAX_MB = env_int("HR_DOCUMENT_MAX_MB", 10, minimum=1)
HR_MAX_HOURS_PER_DAY = env_int("HR_MAX_HOURS_PER_DAY", 12, minimum=1)
ERGANI_TRIAL_URL = env_str("ERGANI_TRIAL_URL", "https://trialeservices.yeka.gr/WebServicesAPI/api")
ERGANI_PROD_URL = env_str("ERGANI_PROD_URL", "https://eservices.yeka.gr/WebServicesAPI/api")
ERGANI_HTTP_TIMEOUT = env_int("ERGANI_HTTP_TIMEOUT", 20, minimum=1)

# Courier vouchers (issue 13). The sandbox courier collects nothing: it works in development
# (DEBUG) and wherever this is set (a staging site); elsewhere it answers 409. The real couriers'
# endpoints and the time one call may take (an unreachable courier answers 502).
COURIER_SANDBOX_ALLOWED = env_bool("COURIER_SANDBOX_ALLOWED", DEBUG)
COURIER_ACS_API_URL = env_str(
    "COURIER_ACS_API_URL", "https://webservices.acscourier.net/ACSRestServices/api/ACSAutoRest"
)
COURIER_HTTP_TIMEOUT = env_int("COURIER_HTTP_TIMEOUT", 10, minimum=1)
# A TrueType font for every PDF (labels, invoices, purchase orders); empty: DejaVu Sans when
# installed, else Helvetica.
PDF_FONT = env_str("PDF_FONT")

# --- E-mail -----------------------------------------------------------------------------------

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Emporion <no-reply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Static and media -------------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
if DEBUG:  # collectstatic fills it in production; in development WhiteNoise only needs it to exist
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Uploaded files (product images, release files, employee documents): on this machine's disk
# (MEDIA_STORAGE=filesystem, one machine) or in an S3-compatible store (MEDIA_STORAGE=s3,
# django-storages) that every web process and worker shares. Files are private in the bucket;
# their URLs are signed and expire (AWS_QUERYSTRING_EXPIRE), except under a custom domain.
MEDIA_STORAGE = env_str("MEDIA_STORAGE", "filesystem").strip().lower()
if MEDIA_STORAGE not in ("filesystem", "s3"):
    raise ImproperlyConfigured(f"MEDIA_STORAGE must be 'filesystem' or 's3'; got {MEDIA_STORAGE!r}")
if MEDIA_STORAGE == "s3":
    _media_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": env_str("AWS_STORAGE_BUCKET_NAME"),
            "endpoint_url": env_str("AWS_S3_ENDPOINT_URL") or None,
            "region_name": env_str("AWS_S3_REGION_NAME") or None,
            "access_key": env_str("AWS_ACCESS_KEY_ID") or None,
            "secret_key": env_str("AWS_SECRET_ACCESS_KEY") or None,
            "custom_domain": env_str("AWS_S3_CUSTOM_DOMAIN") or None,
            "location": env_str("AWS_LOCATION", "media"),
            "default_acl": "private",
            "querystring_auth": True,
            "querystring_expire": env_int("AWS_QUERYSTRING_EXPIRE", 3600, minimum=60),
            "file_overwrite": False,
        },
    }
    if not _media_storage["OPTIONS"]["bucket_name"]:
        raise ImproperlyConfigured("MEDIA_STORAGE is 's3' but AWS_STORAGE_BUCKET_NAME is unset.")
    # Private files (employee documents): the same bucket under their own prefix, always
    # signed URLs and never a custom (public) domain; served only through authorised routes.
    _private_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            **_media_storage["OPTIONS"],
            "location": env_str("AWS_PRIVATE_LOCATION", "private"),
            "custom_domain": None,
            "querystring_auth": True,
        },
    }
else:
    _media_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": _media_storage,
    **({"private": _private_storage} if MEDIA_STORAGE == "s3" else {}),
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# --- Security (production) --------------------------------------------------------------------

SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
if env_bool("TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- i18n, logging ----------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
# Logs: JSON lines with the request id on every record, or plain text; plain is development's
# default. The same format for the web, gunicorn's access log and the Celery worker and beat
# (common.logging_json).
LOG_FORMAT = logging_json.log_format(DEBUG)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "common.observability.RequestIdFilter"}},
    "formatters": {
        "plain": {"format": logging_json.PLAIN},
        "json": logging_json.json_formatter_config(),
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id"],
        },
        # The debug namespace's entries (/rest/core/v1/debug/entries): records at or above the
        # recording level of /debug/settings, written by a thread on its own connection
        # (debugtools.handler explains why; it never raises, blocks or recurses).
        "debug_entries": {
            "class": "debugtools.handler.DatabaseHandler",
            "filters": ["request_id"],
        },
    },
    "root": {"handlers": ["console", "debug_entries"], "level": LOG_LEVEL},
    "loggers": {
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "INFO"},
    },
}

# --- Integration and operations (issue 17) -----------------------------------------------------

# Cross-origin access: only the listed origins (scheme://host[:port]) get CORS headers, and
# with them credentials (cookies, Authorization); any other origin gets none. Under the API
# prefixes only (the portal's /api/ and the REST root).
CORS_ALLOWED_ORIGINS = env_list("CORS_ALLOWED_ORIGINS", [])
CORS_ALLOWED_ORIGIN_REGEXES = env_list("CORS_ALLOWED_ORIGIN_REGEXES", [])
CORS_ALLOW_CREDENTIALS = True
CORS_URLS_REGEX = rf"^/(api|{REST_ROOT})/.*$"
CORS_ALLOW_HEADERS = (
    "accept",
    "authorization",
    "content-type",
    "user-agent",
    "x-csrftoken",
    "x-requested-with",
    NONCE_HEADER.lower(),
    "x-cart-id",
    "idempotency-key",
    "x-api-key",
    "x-request-id",
    # MCP clients in a browser (theme.mcp): the protocol's own headers.
    "mcp-protocol-version",
    "mcp-session-id",
    # the MCP protocol of 2026-07-28 (mcp 2.x clients) names the method and the tool too
    "mcp-method",
    "mcp-name",
)
CORS_EXPOSE_HEADERS = (
    "X-Request-ID",
    "X-Cart-ID",
    "Retry-After",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
    "RateLimit-Policy",
    "Idempotent-Replayed",
    "Content-Disposition",
)
CORS_PREFLIGHT_MAX_AGE = env_int("CORS_PREFLIGHT_MAX_AGE", 86400, minimum=0)

# Prometheus metrics at /metrics (common.metrics): for a scraper sending
# `Authorization: Bearer <METRICS_TOKEN>`, or one whose address is in METRICS_ALLOWED_NETWORKS
# (CIDRs; in development loopback by default). Neither set: refused to everyone.
METRICS_TOKEN = env_str("METRICS_TOKEN")
METRICS_ALLOWED_NETWORKS = env_list(
    "METRICS_ALLOWED_NETWORKS", ["127.0.0.1/32", "::1/128"] if DEBUG else []
)
for _network in METRICS_ALLOWED_NETWORKS:
    try:
        ipaddress.ip_network(_network, strict=False)
    except ValueError:
        raise ImproperlyConfigured(
            f"METRICS_ALLOWED_NETWORKS: {_network!r} is not a network (CIDR)"
        ) from None

# Error tracking: Sentry when SENTRY_DSN is set (no personal data; common.observability).
SENTRY_DSN = env_str("SENTRY_DSN")
init_sentry(
    SENTRY_DSN,
    environment=env_str("SENTRY_ENVIRONMENT"),
    release=env_str("SENTRY_RELEASE"),
)

# ERP CRM (issue 15): lead stages and sources, activity kinds, segment targets, RFM labels.
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "CrmLeadStageEnum": "erp.crm.choices.LeadStage",
        "CrmLeadSourceEnum": "erp.crm.choices.LeadSource",
        "CrmActivityKindEnum": "erp.crm.choices.ActivityKind",
        "CrmSegmentTargetEnum": "erp.crm.choices.SegmentTarget",
        "CrmRfmSegmentEnum": "erp.crm.choices.RfmLabel",
    }
)

# ERP accounting (issue 15): its account types and roles, statuses and kinds.
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "AccountingAccountTypeEnum": "erp.accounting.choices.AccountType",
        "AccountingAccountRoleEnum": "erp.accounting.choices.AccountRole",
        "AccountingFiscalYearStatusEnum": "erp.accounting.choices.FiscalYearStatus",
        "AccountingEntryStatusEnum": "erp.accounting.choices.EntryStatus",
        "AccountingEntryKindEnum": "erp.accounting.choices.EntryKind",
        "AccountingPartnerTypeEnum": "erp.accounting.choices.PartnerType",
        "AccountingSourceTypeEnum": "erp.accounting.choices.SourceType",
        "AccountingAgeingBucketEnum": "erp.accounting.selectors.BUCKETS",
    }
)
# --- Theme: storefront (issue 16, point 1) ------------------------------------------------------
# VAT-number checks (theme.storefront.vat): "sandbox" answers without a network (the default in
# development and tests); "live" asks Greece's AADE registry for Greek numbers when its lookup
# credentials are set (else VIES) and the EU's VIES for the others.
THEME_VAT_PROVIDER = env_str("THEME_VAT_PROVIDER", "sandbox" if DEBUG else "live")
if THEME_VAT_PROVIDER not in ("sandbox", "live"):
    raise ImproperlyConfigured("THEME_VAT_PROVIDER must be sandbox or live")
THEME_VAT_VIES_URL = env_str(
    "THEME_VAT_VIES_URL", "https://ec.europa.eu/taxation_customs/vies/rest-api"
)
THEME_VAT_AADE_URL = env_str(
    "THEME_VAT_AADE_URL", "https://www1.gsis.gr/wsaade/RgWsPublic2/RgWsPublic2"
)
THEME_VAT_AADE_USERNAME = env_str("THEME_VAT_AADE_USERNAME")
THEME_VAT_AADE_PASSWORD = env_str("THEME_VAT_AADE_PASSWORD")
THEME_VAT_HTTP_TIMEOUT = env_int("THEME_VAT_HTTP_TIMEOUT", 10, minimum=1)
THEME_VAT_CACHE_SECONDS = env_int("THEME_VAT_CACHE_SECONDS", 86400, minimum=0)
THEME_WISHLIST_MAX_ITEMS = env_int("THEME_WISHLIST_MAX_ITEMS", 100, minimum=1)
THEME_NEWSLETTER_CONFIRM_SECONDS = env_int("THEME_NEWSLETTER_CONFIRM_SECONDS", 172800, minimum=60)
# A pending address gets at most one confirmation e-mail per this many seconds.
THEME_NEWSLETTER_RESEND_SECONDS = env_int("THEME_NEWSLETTER_RESEND_SECONDS", 600, minimum=0)
# The AI tool endpoint (theme.mcp): tool calls per account per minute (counted in the cache,
# best-effort) and per UTC day (counted in the database, the truth); 0 turns a limit off.
THEME_MCP_CALLS_PER_MINUTE = env_int("THEME_MCP_CALLS_PER_MINUTE", 30, minimum=0)
THEME_MCP_CALLS_PER_DAY = env_int("THEME_MCP_CALLS_PER_DAY", 1000, minimum=0)
THEME_MCP_MAX_BODY_BYTES = env_int("THEME_MCP_MAX_BODY_BYTES", 262144, minimum=1024)
# The SDK logs every stateless request's start and end at INFO: kept to warnings and errors.
LOGGING["loggers"]["mcp"] = {"level": "WARNING"}
THROTTLE_DEFAULTS |= {"newsletter_subscribe": "5/hour", "vat_validate": "30/min"}
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] |= {
    scope: _rate(scope, THROTTLE_DEFAULTS[scope])
    for scope in ("newsletter_subscribe", "vat_validate")
}
# --- Core namespace debug API (issue 16, point 3) --------------------------------------------

# Server log records are recorded as debug entries (debugtools.handler); off: none are.
DEBUGTOOLS_RECORD_LOGS = env_bool("DEBUGTOOLS_RECORD_LOGS", True)
# Entries waiting for the writer thread; beyond this a flood is dropped (and counted).
DEBUGTOOLS_QUEUE_SIZE = env_int("DEBUGTOOLS_QUEUE_SIZE", 1000, minimum=10)
# The size cap of one entry: its message (characters) and its context (bytes of JSON).
DEBUGTOOLS_MAX_MESSAGE_CHARS = env_int("DEBUGTOOLS_MAX_MESSAGE_CHARS", 4000, minimum=100)
DEBUGTOOLS_MAX_CONTEXT_BYTES = env_int("DEBUGTOOLS_MAX_CONTEXT_BYTES", 16384, minimum=1024)
# Beyond the retention days, the hourly purge also keeps at most this many entries.
DEBUGTOOLS_MAX_ENTRIES = env_int("DEBUGTOOLS_MAX_ENTRIES", 100_000, minimum=100)
# /debug/js-log: the largest body taken (bytes) and its rate per client address.
DEBUGTOOLS_JS_LOG_MAX_BYTES = env_int("DEBUGTOOLS_JS_LOG_MAX_BYTES", 8192, minimum=512)
THROTTLE_DEFAULTS["debug_js_log"] = "30/min"
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["debug_js_log"] = _rate("debug_js_log", "30/min")

# Theme page builder (issue 16): a layout's status.
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {"ThemeLayoutStatusEnum": "theme.builder.models.LayoutStatus"}
)

# --- Theme: modules (issue 16, point 2) ---------------------------------------------------------
# The optional modules of the theme namespace: a module not listed answers 404 on its routes
# (as if they did not exist) and its hooks and listeners do nothing. Comma-separated; all on
# by default.
THEME_MODULES_ALL = (
    "recently_viewed",
    "bundles",
    "points",
    "promotions",
    "quotes",
    "product_names",
    "labels",
    "b2b",
    "recover_cart",
)
THEME_MODULES = env_list("THEME_MODULES", list(THEME_MODULES_ALL))
if unknown_modules := set(THEME_MODULES) - set(THEME_MODULES_ALL):
    raise ImproperlyConfigured(f"THEME_MODULES: unknown {', '.join(sorted(unknown_modules))}")
THEME_RECENTLY_VIEWED_MAX = env_int("THEME_RECENTLY_VIEWED_MAX", 20, minimum=1)
THEME_PRODUCT_NAMES_MAX = env_int("THEME_PRODUCT_NAMES_MAX", 100, minimum=1)
# Loyalty points per unit of the order's total (whole points, rounded down).
THEME_POINTS_PER_UNIT = env_int("THEME_POINTS_PER_UNIT", 1, minimum=0)
THEME_LABEL_NEW_DAYS = env_int("THEME_LABEL_NEW_DAYS", 30, minimum=0)
THEME_LABEL_LOW_STOCK = env_int("THEME_LABEL_LOW_STOCK", 5, minimum=0)
# Abandoned carts: idle this many hours gets one recovery e-mail; its link works this long.
THEME_RECOVER_CART_IDLE_HOURS = env_int("THEME_RECOVER_CART_IDLE_HOURS", 4, minimum=1)
THEME_RECOVER_CART_LINK_HOURS = env_int("THEME_RECOVER_CART_LINK_HOURS", 168, minimum=1)
STORE_HOOKS.setdefault("ec_cart_calculated_totals", []).append(
    "theme.modules.hooks.promotions_in_totals"
)
STORE_HOOKS.setdefault("ec_cart_item_price", []).append("theme.modules.hooks.group_price")
THROTTLE_DEFAULTS["quote_request"] = "5/hour"
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["quote_request"] = _rate("quote_request", "5/hour")
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "ThemePointsKindEnum": "theme.modules.models.PointsKind",
        "ThemePromotionKindEnum": "theme.modules.models.PromotionKind",
        "ThemeQuoteStatusEnum": "theme.modules.models.QuoteStatus",
    }
)

# --- Theme and core API descriptions (issue 16, point 6) ---------------------------------------

# Each namespace has its own description, with the store's schema class, errors and security
# schemes (store.docs.schema): ec/v1 stays ec/v1 only. GET .../docs/openapi.json of each, for
# manage_options with the store setting developer.api_docs_enabled on, as the store's.
_NAMESPACE_SPECTACULAR_BASE = {
    key: value
    for key, value in STORE_SPECTACULAR_SETTINGS.items()
    if key not in ("TITLE", "DESCRIPTION", "SCHEMA_PATH_PREFIX", "SERVERS", "PREPROCESSING_HOOKS")
}
THEME_SPECTACULAR_SETTINGS = {
    **_NAMESPACE_SPECTACULAR_BASE,
    "TITLE": f"Emporion Commerce Theme API ({THEME_NS}/v1)",
    "DESCRIPTION": (
        "The storefront theme's REST API: storefront reads (public), the wishlist (the "
        "shopper's or the cart session's), the page builder (edit_posts/edit_post), the "
        "modules (each behind its setting: a module that is off answers 404) and the AI tool "
        "endpoint (MCP, application passwords). Errors are `{code, message, data: {status}}` "
        "as in ec/v1 (the MCP endpoint answers JSON-RPC errors)."
    ),
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/{THEME_NS}/v1",
    "SERVERS": [{"url": f"/{REST_ROOT}/{THEME_NS}/v1"}],
    "PREPROCESSING_HOOKS": ["theme.docs.schema.only_theme_paths"],
    "POSTPROCESSING_HOOKS": [
        *STORE_SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"],
        "theme.docs.schema.add_mcp_operation",
    ],
    "ENUM_NAME_OVERRIDES": dict(STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]),
}
CORE_SPECTACULAR_SETTINGS = {
    **_NAMESPACE_SPECTACULAR_BASE,
    "TITLE": f"Emporion Core API ({CORE_NS}/v1)",
    "DESCRIPTION": (
        "The service's debug tools: recorded log entries, their settings, downloads, "
        "diagnostics and cache resets (manage_options), and a public, rate-limited sink for "
        "client-side log entries. Errors are `{code, message, data: {status}}` as in ec/v1."
    ),
    "SCHEMA_PATH_PREFIX": rf"/{REST_ROOT}/{CORE_NS}/v1",
    "SERVERS": [{"url": f"/{REST_ROOT}/{CORE_NS}/v1"}],
    "PREPROCESSING_HOOKS": ["debugtools.api.schema.only_core_paths"],
    "ENUM_NAME_OVERRIDES": {
        "DebugLevelEnum": "debugtools.api.serializers.LEVEL_NAMES",
        "DebugJsLevelEnum": "debugtools.api.serializers.JS_LEVELS",
    },
}

# --- Marketplace sync (issue 16, point 5: store.marketplace) ------------------------------------
# Inbound notifications: the largest body taken (413 past it) and how far a signature's
# timestamp may be from now (seconds) before it is refused (401).
MARKETPLACE_WEBHOOK_MAX_BYTES = env_int("MARKETPLACE_WEBHOOK_MAX_BYTES", 262144, minimum=1024)
MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS = env_int(
    "MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS", 300, minimum=30
)
# Off (the default): calls to the marketplaces' APIs go to the sandbox client, which records
# them and answers at once; on: they are sent over HTTPS with each marketplace's credentials.
MARKETPLACE_LIVE_API = env_bool("MARKETPLACE_LIVE_API", False)
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "MarketplaceNameEnum": "store.marketplace.providers.MARKETPLACE_NAMES",
        "MarketplaceImportStatusEnum": "store.marketplace.models.ImportStatus",
        "MarketplaceEventStatusEnum": "store.marketplace.models.EventStatus",
    }
)

# --- Marketplace feeds (issue 16, point 5: store.feeds) -----------------------------------------
# Enabled feeds are generated again when their last generation is older than this (the beat
# looks every 5 minutes).
FEEDS_REGENERATE_MINUTES = env_int("FEEDS_REGENERATE_MINUTES", 60, minimum=5)
# Products read per query while a feed is written (bounded memory, a fixed number of queries
# per chunk).
FEEDS_CHUNK_SIZE = env_int("FEEDS_CHUNK_SIZE", 500, minimum=10)
# A product's page on the storefront, after FRONTEND_URL ({slug}: the product's slug).
FEEDS_PRODUCT_PATH = env_str("FEEDS_PRODUCT_PATH", "/product/{slug}")
# How many skipped products a feed's status keeps (the count is always whole).
FEEDS_SKIPPED_KEPT = env_int("FEEDS_SKIPPED_KEPT", 1000, minimum=1)
STORE_SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"].update(
    {
        "FeedMarketplaceEnum": "store.feeds.models.Marketplace",
        "FeedStatusEnum": "store.feeds.models.FeedStatus",
    }
)
