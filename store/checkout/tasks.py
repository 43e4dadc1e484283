"""The checkout's beat tasks: holds that ran out, orders left unpaid. Both are idempotent
(each checkout is re-checked under its lock), so a doubled or late beat is harmless."""

from celery import shared_task
from django.db import OperationalError

from store.checkout.services import expiry as services


@shared_task(
    name="store_checkout.expire_holds",
    time_limit=120,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def expire_holds() -> int:
    """Give back the stock and coupon uses of open checkouts whose hold ran out."""
    return services.checkout_holds_expire()


@shared_task(
    name="store_checkout.cancel_unpaid_orders",
    time_limit=120,
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=3,
)
def cancel_unpaid_orders() -> int:
    """Cancel the checkout orders left unpaid past their hold (stock and coupon uses back)."""
    return services.checkouts_cancel_unpaid()
