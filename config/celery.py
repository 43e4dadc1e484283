"""The Celery application.

The broker is REDIS_URL. Without it (the embedded default) tasks run eagerly in the calling
process, so the service works with no broker at all. Tasks are sent through the database
outbox (common.outbox.enqueue), which the beat drains when a publish at commit failed.

The worker and the beat log as the web does (common.logging_json): JSON lines, each with the id
of the request that sent the task (or the task's own id).
"""

import os

from celery import Celery, Task, signals
from celery.schedules import crontab

from common import celery_fixes
from common.logging_json import configure_celery_logging

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


class ProjectTask(Task):
    """Every task of the project: the worker's main process reports its receipt and its end
    under the request id of its message (common.logging_worker, imported by the worker only)."""

    Strategy = "common.logging_worker:strategy"
    Request = "common.logging_worker:Request"


app = Celery("emporion", task_cls=ProjectTask)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# One Redis client per broker channel, not one per publish (common.celery_fixes).
celery_fixes.reuse_clients()

# With a receiver connected, Celery installs no plain-text handlers of its own.
signals.setup_logging.connect(configure_celery_logging, weak=False, dispatch_uid="project_logs")


def _install_worker_guards(**_kwargs) -> None:
    """A worker survives losing Redis while it holds messages (common.celery_fixes)."""
    celery_fixes.install()


signals.worker_init.connect(_install_worker_guards, weak=False, dispatch_uid="worker_guards")

# Between tasks a worker treats its database connections as the web treats them between
# requests: Django's close_old_connections before and after each task keeps a connection for
# CONN_MAX_AGE, checks it before reuse (CONN_HEALTH_CHECKS) and closes one an error left
# unusable; with the pool (DB_POOL_MAX_SIZE) it hands the connection back. Celery's default
# closed every connection around every task, so each task paid a new connection (a server
# process forked and authenticated) and lost the statements psycopg had prepared. Celery's own
# closing is turned off by a reuse count it never reaches.
app.conf["CELERY_DB_REUSE_MAX"] = 2**62


def _close_old_connections(sender=None, task=None, **_kwargs) -> None:
    task = task or sender
    if task is not None and getattr(task.request, "is_eager", False):
        return  # an eager task runs inside the caller's request or transaction
    from django.db import connections

    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:  # a transaction around the task (a test's) stays
            connection.close_if_unusable_or_obsolete()


signals.task_prerun.connect(_close_old_connections, weak=False, dispatch_uid="db_prerun")
signals.task_postrun.connect(_close_old_connections, weak=False, dispatch_uid="db_postrun")

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
    # Store reports: the days before today are closed into the report rollups (idempotent, so
    # hourly is safe; a missed run only leaves more days to read from the orders).
    "store-reports-close-days": {
        "task": "store_reports.close_days",
        "schedule": crontab(minute=7),
    },
    # Store inventory: the stock movements' days that ended (10 minutes ago) are closed into
    # the daily stock rollups (idempotent; a missed run only leaves more rows to read).
    "store-inventory-close-stock-days": {
        "task": "store_inventory.close_stock_days",
        "schedule": crontab(minute=13),
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
