from celery import shared_task

from theme.storefront import services


@shared_task(name="theme_storefront.purge_stale_wishlists", acks_late=True)
def purge_stale_wishlists() -> int:
    """Beat: delete guest wishlists idle past the guest cart keep time (idempotent)."""
    return services.wishlists_purge_stale()
