"""Old carts are deleted: a guest's after `cart.guest_cart_days` without a change, a
customer's after `cart.customer_cart_days` (store settings)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from store.cart.models import Cart
from store.settings import selectors as store_settings

BATCH = 500


def carts_purge_stale(*, now: datetime | None = None) -> int:
    """Delete the carts idle past their keep time, in small batches; answers how many."""
    now = now or timezone.now()
    limits = store_settings.get_section("cart")
    stale = Cart.objects.filter(
        user__isnull=True, updated_at__lt=now - timedelta(days=limits["guest_cart_days"])
    ) | Cart.objects.filter(
        user__isnull=False, updated_at__lt=now - timedelta(days=limits["customer_cart_days"])
    )
    deleted, after = 0, 0
    while True:
        ids = list(stale.filter(pk__gt=after).order_by("pk").values_list("pk", flat=True)[:BATCH])
        if not ids:
            return deleted
        after = ids[-1]
        with transaction.atomic():
            # Re-checked in the DELETE itself: a cart touched meanwhile is kept.
            _count, per_model = stale.filter(pk__in=ids).delete()
        deleted += per_model.get(Cart._meta.label, 0)
