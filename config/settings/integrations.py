"""Outbound calls and the systems the service talks to: the private-address policy of every
outbound call, webhook deliveries, and the marketplaces (order sync and product feeds)."""

from __future__ import annotations

from config.env import env_bool, env_int, env_str

# --- Outbound calls ---------------------------------------------------------------------------

# Development and tests only: lets every outbound call (common.net: webhooks, the marketplace,
# the providers) use http:// URLs and loopback addresses (every other private or reserved range
# stays blocked); WEBHOOKS_ALLOW_PRIVATE_URLS is its older name. `check --deploy` warns while
# either is on.
OUTBOUND_ALLOW_PRIVATE_URLS = env_bool("OUTBOUND_ALLOW_PRIVATE_URLS", False)
WEBHOOKS_ALLOW_PRIVATE_URLS = env_bool("WEBHOOKS_ALLOW_PRIVATE_URLS", False)

# --- Webhooks ---------------------------------------------------------------------------------

# A worker's claim on a delivery it is sending lasts this long; a delivery whose task never
# claimed it (lost with a killed worker) is dispatched again by the beat after this long.
WEBHOOK_CLAIM_LEASE_SECONDS = env_int("WEBHOOK_CLAIM_LEASE_SECONDS", 60, minimum=15)
WEBHOOK_REDISPATCH_SECONDS = env_int("WEBHOOK_REDISPATCH_SECONDS", 300, minimum=10)
# At most this many deliveries in flight to one webhook across every worker (webhooks.inflight,
# counted in Redis; no cap while Redis is unreachable): a slow receiver holds that many
# workers, never all of them. A batch over the cap waits a few seconds in the queue.
WEBHOOK_MAX_IN_FLIGHT = env_int("WEBHOOK_MAX_IN_FLIGHT", 4, minimum=1)

# --- Marketplace sync (store.marketplace) -----------------------------------------------------

# Inbound notifications: the largest body taken (413 past it) and how far a signature's
# timestamp may be from now (seconds) before it is refused (401).
MARKETPLACE_WEBHOOK_MAX_BYTES = env_int("MARKETPLACE_WEBHOOK_MAX_BYTES", 262144, minimum=1024)
MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS = env_int(
    "MARKETPLACE_WEBHOOK_TOLERANCE_SECONDS", 300, minimum=30
)
# Off (the default): calls to the marketplaces' APIs go to the sandbox client, which records
# them and answers at once; on: they are sent over HTTPS with each marketplace's credentials.
MARKETPLACE_LIVE_API = env_bool("MARKETPLACE_LIVE_API", False)

# --- Marketplace feeds (store.feeds) ----------------------------------------------------------

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
