"""Demo marketplace feeds for `manage.py seed_demo`: both feeds on (Google ships to Greece at a
flat price), generated now, with their secret URLs printed (idempotent: the settings are set
again, the feeds generated again from the catalog as it is)."""

from __future__ import annotations

from decimal import Decimal

from django.urls import reverse

from common.links import absolute_url
from store.feeds import services
from store.feeds.models import Marketplace

SETTINGS = {
    Marketplace.GOOGLE: {
        "enabled": True,
        "shipping_price": Decimal("3.50"),
        "shipping_country": "GR",
    },
    Marketplace.SKROUTZ: {"enabled": True},
}


def seed() -> list[str]:
    lines = []
    for marketplace, fields in SETTINGS.items():
        services.feed_update(marketplace=marketplace, fields=fields)
        feed = services.generate(marketplace=marketplace)
        path = reverse("store-feed-xml", kwargs={"marketplace": marketplace})
        lines.append(
            f"  {marketplace}: {feed.status}, {feed.item_count} items, "
            f"{feed.skipped_count} skipped (GET .../feeds/{marketplace}/skipped)"
        )
        lines.append("    " + absolute_url(f"{path}?token={feed.token}"))
    return lines
