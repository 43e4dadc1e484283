"""Stock side effects of orders, in the worker: exact and idempotent."""

from celery import shared_task
from django.db import OperationalError

from store.orders import services


@shared_task(
    name="store_orders.release_stock",
    time_limit=60,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=8,
)
def release_stock(order_id: int) -> int:
    """Give back the stock an order no longer holds (cancelled, refunded, failed, lines
    removed or lowered). A second run, or a gone order, changes nothing."""
    return services.order_stock_release(order_id=order_id)


@shared_task(name="store_orders.release_due", time_limit=60, ignore_result=True)
def release_due() -> int:
    """Beat: enqueue releases that were recorded but never ran (e.g. the broker was down)."""
    return services.release_due()
