from celery import shared_task

from store.feeds import services


@shared_task(name="store_feeds.generate", acks_late=True, time_limit=1800)
def generate(marketplace: str) -> int:
    """Write the marketplace's feed from the catalog (idempotent: the same catalog gives the
    same bytes and ETag). Answers the item count."""
    return services.generate(marketplace=marketplace).item_count


@shared_task(name="store_feeds.regenerate_due", acks_late=True)
def regenerate_due() -> list[str]:
    """Beat: ask for the enabled feeds older than FEEDS_REGENERATE_MINUTES."""
    return services.regenerate_due()
