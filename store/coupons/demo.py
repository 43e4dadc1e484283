"""Demo coupons for `manage.py seed_demo` (idempotent by code)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from store.coupons import services
from store.coupons.models import Coupon

COUPONS = [
    {
        "code": "WELCOME10",
        "description": "10% off a first order",
        "discount_type": "percent",
        "amount": Decimal("10"),
        "usage_limit_per_user": 1,
    },
    {
        "code": "SAVE5",
        "description": "5.00 off orders of 30.00 or more",
        "discount_type": "fixed_cart",
        "amount": Decimal("5"),
        "minimum_amount": Decimal("30"),
    },
    {
        "code": "FREESHIP",
        "description": "Free shipping, this year",
        "discount_type": "fixed_cart",
        "amount": Decimal("0"),
        "free_shipping": True,
        "expires_days": 365,
    },
    {
        "code": "ONLYONCE",
        "description": "20% off, for the first order that uses it, alone",
        "discount_type": "percent",
        "amount": Decimal("20"),
        "usage_limit": 1,
        "individual_use": True,
    },
]


def seed() -> list[str]:
    lines = []
    for spec in COUPONS:
        fields = dict(spec)
        days = fields.pop("expires_days", None)
        if days:
            fields["expires_at"] = timezone.now() + timedelta(days=days)
        coupon = Coupon.objects.filter(code__iexact=fields["code"]).first()
        if coupon is None:
            coupon = services.coupon_create(fields=fields)
        lines.append(f"  {coupon.code:<10} {coupon.description}")
    return lines
