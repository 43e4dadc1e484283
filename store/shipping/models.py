from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.common.money import MoneyModelField


class LocationType(models.TextChoices):
    COUNTRY = "country", "Country"
    REGION = "region", "Region (CC:REGION)"
    POSTCODE = "postcode", "Postcode pattern"


class MethodType(models.TextChoices):
    FLAT_RATE = "flat_rate", "Flat rate"
    FREE_SHIPPING = "free_shipping", "Free shipping"
    LOCAL_PICKUP = "local_pickup", "Local pickup"
    WEIGHT_BASED = "weight_based", "By weight"


class FreeShippingRequires(models.TextChoices):
    NOTHING = "none", "Nothing (always free)"
    MIN_AMOUNT = "min_amount", "A minimum order amount"
    COUPON = "coupon", "A free-shipping coupon"
    EITHER = "either", "A minimum amount or a coupon"
    BOTH = "both", "A minimum amount and a coupon"


class ShippingZone(models.Model):
    """Where a set of methods applies. Zones are tried in order; the first that matches wins.

    A zone matches an address when one of its country/region locations does (or it has none)
    and one of its postcode patterns does (or it has none); a zone with no location at all
    matches nothing. The fallback zone ("everywhere else") matches any address no other zone
    takes, and is tried last.
    """

    name = models.CharField(max_length=200)
    sort_order = models.IntegerField(default=0)
    is_fallback = models.BooleanField(
        "everywhere else",
        default=False,
        help_text="Matches every address no other zone matches (its locations are ignored).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["is_fallback", "sort_order", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["is_fallback"],
                condition=Q(is_fallback=True),
                name="store_shipping_one_fallback_zone",
            )
        ]

    def __str__(self) -> str:
        return self.name


class ShippingZoneLocation(models.Model):
    zone = models.ForeignKey(ShippingZone, on_delete=models.CASCADE, related_name="locations")
    type = models.CharField(max_length=16, choices=LocationType.choices)
    code = models.CharField(
        max_length=100, help_text="GR (country), GR:I (region), 104* or 10000...19999 (postcode)."
    )

    class Meta:
        ordering = ["type", "code", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["zone", "type", "code"], name="store_shipping_location_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_type_display()}: {self.code}"


class ShippingMethod(models.Model):
    """A way of shipping in a zone; its cost is computed for the cart (see calculation.py).

    Costs are entered like product prices (with or without tax, setting tax.prices_include_tax).
    """

    zone = models.ForeignKey(ShippingZone, on_delete=models.CASCADE, related_name="methods")
    type = models.CharField(max_length=16, choices=MethodType.choices)
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=500, blank=True)
    enabled = models.BooleanField(default=True)
    sort_order = models.IntegerField(default=0)
    cost = MoneyModelField(
        default=0, help_text="Flat rate and local pickup: the cost; by weight: a base cost."
    )
    cost_per_item = MoneyModelField(
        default=0, help_text="Flat rate: added per item (quantity) in the cart."
    )
    min_amount = MoneyModelField(
        null=True,
        blank=True,
        help_text="Free shipping: the order amount (items after discounts) it needs.",
    )
    requires = models.CharField(
        max_length=16,
        choices=FreeShippingRequires.choices,
        default=FreeShippingRequires.NOTHING,
        help_text="Free shipping: what makes it available.",
    )
    weight_rates = models.JSONField(
        default=list,
        blank=True,
        help_text='By weight: brackets [{"max_weight": "1", "cost": "4.00"}, ...] in the '
        "store's weight unit, by rising weight; heavier carts than the last bracket cannot "
        "use the method.",
    )
    taxable = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["zone_id", "sort_order", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(cost__gte=0) & Q(cost_per_item__gte=0),
                name="store_shipping_method_costs_positive",
            )
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.get_type_display()})"
