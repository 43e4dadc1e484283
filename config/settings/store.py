"""The store (ec/v1): the catalog's cache, uploaded images, the extension points, the payment
gateways and the couriers."""

from __future__ import annotations

from config.env import env_bool, env_int, env_str
from config.settings.base import DEBUG

# Public product lists (and facet counts) without a search term are cached this long; every
# catalog write invalidates them at once, so this only bounds memory.
STORE_CATALOG_CACHE_SECONDS = env_int("STORE_CATALOG_CACHE_SECONDS", 600, minimum=0)
# Uploaded images: a hard ceiling above the store setting media.max_upload_size_mb.
STORE_MEDIA_MAX_UPLOAD_MB = env_int("STORE_MEDIA_MAX_UPLOAD_MB", 64, minimum=1)
STORE_MEDIA_MAX_PIXELS = env_int("STORE_MEDIA_MAX_PIXELS", 50_000_000, minimum=1)
# Extension points of the spec's Events table: {"ec_search_results": ["pkg.module.fn"], ...}.
# The theme modules' hooks are listed here (the store never imports the theme): promotions cut
# the cart's totals, a B2B group's discount lowers its members' prices.
STORE_HOOKS: dict[str, list[str]] = {
    "ec_cart_calculated_totals": ["theme.modules.promotions.hooks.promotions_in_totals"],
    "ec_cart_item_price": ["theme.modules.b2b.hooks.group_price"],
}

# --- Payments ---------------------------------------------------------------------------------

# Sandbox providers move no money: a payer who presses Pay gets what they pay for for free.
# They work in development (DEBUG) and wherever this is set explicitly (a staging site);
# elsewhere a payment through a sandbox is refused (503 payments_not_configured).
PAYMENT_SANDBOX_ALLOWED = env_bool("PAYMENT_SANDBOX_ALLOWED", DEBUG)
# The real gateways' API addresses (empty: the provider's own, PayPal's by the config's mode)
# and the time one call may take; an unreachable provider answers 502.
PAYMENT_STRIPE_API_BASE = env_str("PAYMENT_STRIPE_API_BASE")
PAYMENT_PAYPAL_API_BASE = env_str("PAYMENT_PAYPAL_API_BASE")
PAYMENT_HTTP_TIMEOUT = env_int("PAYMENT_HTTP_TIMEOUT", 20, minimum=1)

# --- Courier vouchers -------------------------------------------------------------------------

# The sandbox courier collects nothing: it works in development (DEBUG) and wherever this is set
# (a staging site); elsewhere it answers 409. The real couriers' endpoints and the time one call
# may take (an unreachable courier answers 502).
COURIER_SANDBOX_ALLOWED = env_bool("COURIER_SANDBOX_ALLOWED", DEBUG)
COURIER_ACS_API_URL = env_str(
    "COURIER_ACS_API_URL", "https://webservices.acscourier.net/ACSRestServices/api/ACSAutoRest"
)
COURIER_HTTP_TIMEOUT = env_int("COURIER_HTTP_TIMEOUT", 10, minimum=1)
