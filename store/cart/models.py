from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from store.catalog.models import Product, Variant
from store.coupons.models import Coupon
from store.shipping.models import ShippingMethod


class Cart(models.Model):
    """A shopper's cart, found by its token (the `ec_cart_id` cookie) or by its owner.

    A guest cart has no user; a logged-in shopper has at most one cart, which follows the
    account on every device.
    """

    token = models.CharField(max_length=64, unique=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="store_cart",
    )
    shipping_country = models.CharField(max_length=2, blank=True)
    shipping_region = models.CharField(
        max_length=100,
        blank=True,
        help_text="The address's region: an ISO 3166-2 code without the country (M), or free "
        "text where the country has none (store.common.addresses).",
    )
    shipping_postcode = models.CharField(max_length=20, blank=True)
    vat_number = models.CharField(
        max_length=32,
        blank=True,
        help_text="The customer's EU VAT number (checkout field vat_number; checked with "
        "python-stdnum): the tax of the EU B2B reverse charge (store.tax).",
    )
    shipping_method = models.ForeignKey(
        ShippingMethod, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    coupons = models.ManyToManyField(Coupon, through="CartCoupon", blank=True, related_name="+")
    stock_held = models.BooleanField(
        default=False,
        help_text="Its open checkout holds stock for it in the inventory ledger (reference "
        "cart:<id>); the cart's own limits count those units as its own.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        owner = self.user.email if self.user_id and self.user else "guest"
        return f"Cart {self.pk} ({owner})"


class CartItem(models.Model):
    """One line: a product (and variant) with its options; `key` is the line's token."""

    cart = models.ForeignKey(Cart, on_delete=models.CASCADE, related_name="items")
    key = models.CharField(max_length=32)
    product = models.ForeignKey(Product, on_delete=models.CASCADE, related_name="+")
    variant = models.ForeignKey(
        Variant, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    options = models.JSONField(default=dict, blank=True)
    quantity = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["cart", "key"], name="store_cart_item_key_unique"),
            models.CheckConstraint(condition=Q(quantity__gte=1), name="store_cart_item_qty_gte_1"),
        ]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.product_id}/{self.variant_id or '-'}"


class CartCoupon(models.Model):
    cart = models.ForeignKey(Cart, on_delete=models.CASCADE, related_name="applied_coupons")
    coupon = models.ForeignKey(Coupon, on_delete=models.CASCADE, related_name="+")
    applied_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["applied_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["cart", "coupon"], name="store_cart_coupon_unique")
        ]

    def __str__(self) -> str:
        return f"{self.cart_id}: {self.coupon_id}"
