from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from store.catalog.models import Category, Product
from store.common.money import MoneyModelField


class DiscountType(models.TextChoices):
    PERCENT = "percent", "Percentage discount"
    FIXED_CART = "fixed_cart", "Fixed cart discount"
    FIXED_PRODUCT = "fixed_product", "Fixed product discount"


class Coupon(models.Model):
    """A discount code. Codes are matched without regard to case ("Summer10" = "SUMMER10").

    `usage_count` counts confirmed uses (orders placed); uses held by open checkouts are rows
    of CouponUse and count against the limits too while their hold lasts.
    """

    code = models.CharField(max_length=50)
    description = models.TextField(blank=True)
    discount_type = models.CharField(
        max_length=16, choices=DiscountType.choices, default=DiscountType.FIXED_CART
    )
    amount = MoneyModelField(
        default=0,
        help_text="Percent: 0-100; fixed cart: off the cart; fixed product: off each eligible "
        "item (per unit).",
    )
    free_shipping = models.BooleanField(
        default=False, help_text="Shipping costs nothing (with any discount type and amount)."
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    minimum_amount = MoneyModelField(null=True, blank=True, help_text="Minimum cart subtotal.")
    maximum_amount = MoneyModelField(null=True, blank=True, help_text="Maximum cart subtotal.")
    usage_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Uses overall.")
    usage_limit_per_user = models.PositiveIntegerField(
        null=True, blank=True, help_text="Uses per customer (account or e-mail address)."
    )
    usage_count = models.PositiveIntegerField(default=0, help_text="Derived: confirmed uses.")
    individual_use = models.BooleanField(
        default=False, help_text="Cannot be combined with other coupons."
    )
    exclude_sale_items = models.BooleanField(
        default=False, help_text="Items on sale get no discount from this coupon."
    )
    products = models.ManyToManyField(
        Product, blank=True, related_name="+", help_text="Only these products (none: all)."
    )
    excluded_products = models.ManyToManyField(Product, blank=True, related_name="+")
    categories = models.ManyToManyField(
        Category,
        blank=True,
        related_name="+",
        help_text="Only products of these categories (none: all).",
    )
    excluded_categories = models.ManyToManyField(Category, blank=True, related_name="+")
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(Lower("code"), name="store_coupons_code_unique_ci"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="store_coupons_amount_gte_0"),
            models.CheckConstraint(
                condition=~Q(discount_type="percent") | Q(amount__lte=100),
                name="store_coupons_percent_lte_100",
            ),
        ]

    def __str__(self) -> str:
        return self.code


class CouponUseStatus(models.TextChoices):
    HELD = "held", "Held (checkout open)"
    CONFIRMED = "confirmed", "Confirmed (order placed)"
    RELEASED = "released", "Released"


class CouponUse(models.Model):
    """One use of a coupon by one order: held while its checkout is open, then confirmed when
    the order is placed, or released (checkout abandoned, order cancelled)."""

    coupon = models.ForeignKey(Coupon, on_delete=models.PROTECT, related_name="uses")
    order_reference = models.CharField(
        max_length=64, help_text="The checkout or order this use belongs to."
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    email = models.CharField(max_length=254, blank=True, help_text="Lower-case.")
    status = models.CharField(
        max_length=16, choices=CouponUseStatus.choices, default=CouponUseStatus.HELD
    )
    held_until = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["coupon", "order_reference"], name="store_coupons_use_once_per_order"
            )
        ]
        indexes = [
            models.Index(fields=["coupon", "status"]),
            models.Index(fields=["order_reference"]),
            models.Index(fields=["status", "held_until"]),
        ]

    def __str__(self) -> str:
        return f"{self.coupon_id} / {self.order_reference} ({self.status})"
