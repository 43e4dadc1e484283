from celery import shared_task

from store.coupons.services import coupon_holds_expire


@shared_task(name="store_coupons.expire_holds", acks_late=True)
def expire_holds() -> int:
    """Beat: holds of abandoned checkouts that ran out are marked released (idempotent; they
    already stopped counting against the limits when they ran out)."""
    return coupon_holds_expire()
