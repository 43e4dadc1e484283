"""The core of the settings: paths, DEBUG and the secret key, hosts, apps, middleware, templates,
the site's public address and the URL namespaces.

Every later module of this package may read these names (imported by name, never by `*`).
"""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent.parent
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

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework_simplejwt.token_blacklist",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "common",
    "accounts",
    "licensing",
    "clients",
    "webhooks",
    # The Commerce Store API (ec/v1): a package of sub-apps, one per domain (store/).
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
    # Marketplaces: orders and settings; product feeds and category mapping.
    "store.marketplace",
    "store.feeds",
    # The ERP: a package of apps behind the Business-tier licence gate (erp/).
    "erp.core",
    "erp.inventory",
    "erp.invoicing",
    "erp.purchasing",
    "erp.accounting",
    "erp.crm",
    "erp.hr",
    # The theme namespace and the core debug namespace.
    "theme.storefront",
    "theme.builder",
    "theme.modules",
    # The theme modules, one app each, on the kernel above (theme.modules).
    "theme.modules.recently_viewed",
    "theme.modules.bundles",
    "theme.modules.points",
    "theme.modules.promotions",
    "theme.modules.quotes",
    "theme.modules.product_names",
    "theme.modules.labels",
    "theme.modules.b2b",
    "theme.modules.recover_cart",
    "theme.mcp",
    "debugtools",
    # Cross-origin access: the middleware below answers preflights.
    "corsheaders",
    # Store webhooks: the routes bridging the store and the webhooks app.
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
# A TrueType font for every PDF (labels, invoices, purchase orders); empty: DejaVu Sans when
# installed, else Helvetica.
PDF_FONT = env_str("PDF_FONT")

# --- i18n -------------------------------------------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- The site's address, URLs and namespaces: the spec's {prefix}, REST root and names -------

# This site's public address: every link in e-mails, feeds and API answers starts with it
# (common.links), never with the host a request came in on. `make run` sets it from its HOST and
# PORT; a value that cannot start a link stops every command (check common.E005).
FRONTEND_URL = env_str("FRONTEND_URL", "http://127.0.0.1:8000").strip().rstrip("/")

REST_ROOT = env_str("REST_ROOT", "rest").strip("/")
STORE_PREFIX = "ec"
THEME_NS = env_str("THEME_NS", "theme").strip("/")
CORE_NS = env_str("CORE_NS", "core").strip("/")
NONCE_HEADER = "X-Platform-Nonce"
WEBHOOK_USER_AGENT = "Emporion-Webhooks/1.0"
