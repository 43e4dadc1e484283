"""The Celery application.

The broker is REDIS_URL. Without it (the embedded default) tasks run eagerly in the calling
process, so the service works with no broker at all. Tasks are sent through the database
outbox (common.outbox.enqueue), which the beat drains when a publish at commit failed.
"""

import os

from celery import Celery
from celery.schedules import crontab

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("emporion")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Periodic work, one entry per job; every task is idempotent, so a missed or doubled beat is
# harmless.
app.conf.beat_schedule = {
    # Outbox: tasks whose publish at commit failed (broker down) are published when due.
    "drain-outbox": {
        "task": "common.drain_outbox",
        "schedule": 10.0,
    },
    # The worker's heartbeat, shown by /healthz (seen within HEARTBEAT_STALE: up).
    "worker-heartbeat": {
        "task": "common.heartbeat",
        "schedule": 30.0,
    },
    "purge-outbox": {
        "task": "common.purge_outbox",
        "schedule": crontab(minute=29),
    },
    # Debug log entries past their retention days (or beyond DEBUGTOOLS_MAX_ENTRIES).
    "debugtools-purge-entries": {
        "task": "debugtools.purge_entries",
        "schedule": crontab(minute=47),
    },
    "purge-idempotency-keys": {
        "task": "common.purge_idempotency_keys",
        "schedule": crontab(minute=17),
    },
    "purge-expired-auth-tokens": {
        "task": "accounts.purge_expired_tokens",
        "schedule": crontab(minute=41, hour=3),
    },
    # Licensing: subscriptions, licences and packs past their end become expired.
    "expire-licenses": {
        "task": "licensing.expire_licenses",
        "schedule": crontab(minute=5),
    },
    # Webhooks: due retry attempts wait in the database; this enqueues them.
    "webhooks-dispatch-due": {
        "task": "webhooks.dispatch_due",
        "schedule": 10.0,
    },
    # Store orders: stock releases whose task never ran (broker unreachable at commit).
    "store-orders-release-due": {
        "task": "store_orders.release_due",
        "schedule": 60.0,
    },
    # Store courier: the open vouchers' tracking is read again (shipments and fulfilment follow).
    "store-courier-refresh-tracking": {
        "task": "store_courier.refresh_tracking",
        "schedule": crontab(minute="*/15"),
    },
    # Store: idle carts are deleted; coupon holds of abandoned checkouts are released.
    "store-purge-stale-carts": {
        "task": "store_cart.purge_stale_carts",
        "schedule": crontab(minute=23),
    },
    "store-expire-coupon-holds": {
        "task": "store_coupons.expire_holds",
        "schedule": crontab(minute="*/5"),
    },
    # Store checkout: open checkouts whose hold ran out give their stock and coupon uses back;
    # orders left unpaid past their hold are cancelled.
    "store-checkout-expire-holds": {
        "task": "store_checkout.expire_holds",
        "schedule": 60.0,
    },
    "store-checkout-cancel-unpaid-orders": {
        "task": "store_checkout.cancel_unpaid_orders",
        "schedule": 60.0,
    },
    # Theme storefront: guest wishlists idle past the guest cart keep time are deleted.
    "theme-purge-stale-wishlists": {
        "task": "theme_storefront.purge_stale_wishlists",
        "schedule": crontab(minute=41),
    },
    # Theme modules: idle carts get a recovery e-mail (once per idle spell).
    "theme-recover-abandoned-carts": {
        "task": "theme_modules.recover_abandoned_carts",
        "schedule": crontab(minute="*/15"),
    },
    # ERP: a data import or backfill whose next batch was lost with a worker goes on.
    "erp-resume-stalled-jobs": {
        "task": "erp_core.resume_stalled_jobs",
        "schedule": 60.0,
    },
    # Marketplace sync: events whose processing was lost (a worker died) or failed run again.
    "store-marketplace-process-pending": {
        "task": "store_marketplace.process_pending",
        "schedule": crontab(minute="*/5"),
    },
    # Marketplace feeds: enabled feeds older than FEEDS_REGENERATE_MINUTES are generated again.
    "store-feeds-regenerate-due": {
        "task": "store_feeds.regenerate_due",
        "schedule": crontab(minute="*/5"),
    },
}
