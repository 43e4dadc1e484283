"""The theme namespace: the storefront's VAT checks, wishlist and newsletter, the AI tool
endpoint (MCP), and the optional modules."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.env import env_int, env_list, env_str
from config.settings.base import DEBUG

# --- Storefront -------------------------------------------------------------------------------

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

# --- The AI tool endpoint ---------------------------------------------------------------------

# theme.mcp: tool calls per account per minute (counted in the cache, best-effort) and per UTC
# day (counted in the database, the truth); 0 turns a limit off.
THEME_MCP_CALLS_PER_MINUTE = env_int("THEME_MCP_CALLS_PER_MINUTE", 30, minimum=0)
THEME_MCP_CALLS_PER_DAY = env_int("THEME_MCP_CALLS_PER_DAY", 1000, minimum=0)
THEME_MCP_MAX_BODY_BYTES = env_int("THEME_MCP_MAX_BODY_BYTES", 262144, minimum=1024)

# --- Modules ----------------------------------------------------------------------------------

# The optional modules of the theme namespace: a module not listed answers 404 on its routes
# (as if they did not exist) and its hooks and listeners do nothing. Comma-separated; all on
# by default. Their store hooks are listed in STORE_HOOKS (config.settings.store).
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
