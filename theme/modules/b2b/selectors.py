"""The customer groups' reads: the list with member counts, a shopper's group and the
members' discounts (from the cache)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Count, QuerySet

from store.common.cache import cached_copy
from store.coupons import selectors as coupon_selectors
from theme.modules.b2b.models import CustomerGroup, CustomerGroupMember

# The group discounts are read on every cart pricing: they live in the coupon terms' family,
# whose version token the cart reads in its one get_many of version tokens
# (store.cart.services.pricing.pricing_cache_keys), so they cost no extra round trip. A write
# bumps that family (coupon terms are read again too: small and rare).
GROUPS = coupon_selectors.terms_cache


def groups() -> QuerySet[CustomerGroup]:
    """The groups by name, each with its member count (paged by the caller)."""
    return CustomerGroup.objects.annotate(member_count=Count("memberships"))


def group_of(user: Any) -> CustomerGroup | None:
    if user is None or not user.is_authenticated:
        return None
    return CustomerGroup.objects.filter(memberships__user=user).first()


def _load_group_discounts() -> dict[int, Decimal]:
    rows = CustomerGroupMember.objects.filter(group__discount_percent__gt=0).values_list(
        "user_id", "group__discount_percent"
    )
    return dict(rows)


def group_discount(user_id: int) -> Decimal:
    """The percent off of `user_id`'s group (0 without one): one map of every member with a
    discount, from the cache when warm (one query per change of any group otherwise)."""
    discounts: dict[int, Decimal] = cached_copy(
        GROUPS, "theme_group_discounts", _load_group_discounts
    )
    return discounts.get(user_id, Decimal(0))
