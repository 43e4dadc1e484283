"""Who may do what and from where: the user model, passwords, one-time tokens, log-in limits,
JWT, CSRF, HTTPS and cookies, and cross-origin access."""

from __future__ import annotations

from datetime import timedelta

from config.env import env_bool, env_int, env_list, env_str
from config.settings.base import DEBUG, NONCE_HEADER, REST_ROOT, SECRET_KEY

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

# --- CSRF -------------------------------------------------------------------------------------

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# A refused CSRF check under an API prefix answers JSON in that namespace's style.
CSRF_FAILURE_VIEW = "common.views.csrf_failure"

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

# --- Cross-origin access ----------------------------------------------------------------------

# Only the listed origins (scheme://host[:port]) get CORS headers, and with them credentials
# (cookies, Authorization); any other origin gets none. Under the API prefixes only (the
# portal's /api/ and the REST root).
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
