from celery import shared_task

from store.cart.services.cleanup import carts_purge_stale


@shared_task(name="store_cart.purge_stale_carts", acks_late=True)
def purge_stale_carts() -> int:
    """Beat: delete carts left unchanged past their keep time (idempotent)."""
    return carts_purge_stale()
