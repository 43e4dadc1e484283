"""The promotion rules' reads: the active ones (from the cache) and their cuts of a cart."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from django.utils import timezone

from store.common.cache import cached_copy
from store.coupons import selectors as coupon_selectors
from theme.modules.promotions.models import Promotion

# The rules are read on every cart pricing: they live in the coupon terms' family, whose version
# token the cart reads in its one get_many of version tokens
# (store.cart.services.pricing.pricing_cache_keys), so they cost no extra round trip. A write
# bumps that family (coupon terms are read again too: small and rare).
PROMOTIONS = coupon_selectors.terms_cache
CENT = Decimal("0.01")


def _load_promotions() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "id": p.pk,
            "name": p.name,
            "description": p.description,
            "kind": p.kind,
            "value": p.value,
            "min_subtotal": p.min_subtotal,
            "starts_at": p.starts_at,
            "ends_at": p.ends_at,
            "priority": p.priority,
        }
        for p in Promotion.objects.filter(active=True).order_by("priority", "pk")
    )


def active_promotions(now: datetime | None = None) -> list[dict[str, Any]]:
    """The active rules in their dates, by priority (from the cache: no query when warm)."""
    now = now or timezone.now()
    return [
        rule
        for rule in cached_copy(PROMOTIONS, "theme_promotions", _load_promotions)
        if (rule["starts_at"] is None or rule["starts_at"] <= now)
        and (rule["ends_at"] is None or rule["ends_at"] > now)
    ]


def promotions_for(
    base: Decimal, now: datetime | None = None
) -> list[tuple[dict[str, Any], Decimal]]:
    """The rules that apply to a cart whose discounted subtotal is `base`, each with its cut,
    in priority order; together they never cut more than `base`."""
    out: list[tuple[dict[str, Any], Decimal]] = []
    left = max(base, Decimal(0))
    for rule in active_promotions(now):
        if base <= 0 or base < rule["min_subtotal"] or left <= 0:
            continue
        if rule["kind"] == "percent":
            cut = (base * min(rule["value"], Decimal(100)) / 100).quantize(CENT)
        else:
            cut = rule["value"]
        cut = min(cut, left)
        if cut > 0:
            out.append((rule, cut))
            left -= cut
    return out
