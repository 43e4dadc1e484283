"""Checkouts: a cart on its way to becoming an order.

A checkout belongs to a cart (the cart session: the `ec_cart_id` cookie, or a logged-in
customer's cart) and holds what the order will need while it is open: the stock of the cart's
lines (movements in the inventory ledger, referenced `cart:<id>`) and one use of each of its
coupons (the coupons' use ledger, referenced `checkout:<id>`), for `checkout.hold_minutes`
after its last write.

States (spec: "not shown"):

- open: being filled in; stock and coupon uses held until `expires_at`;
- expired: the hold ran out and was given back (beat); any write takes it again and reopens;
- awaiting_payment: the order is placed (pending) but the card payment failed: complete again
  (another card, or another method) until `payment_due_at`, then the order is cancelled;
- completed: the order is placed (paid, or to be paid offline);
- cancelled: ended without an order (replaced by another checkout of the same cart), or its
  unpaid order was cancelled.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class CheckoutStatus(models.TextChoices):
    OPEN = "open", "Open"
    EXPIRED = "expired", "Expired (hold given back)"
    AWAITING_PAYMENT = "awaiting_payment", "Order placed, awaiting payment"
    COMPLETED = "completed", "Completed"
    CANCELLED = "cancelled", "Cancelled"


EDITABLE = frozenset({CheckoutStatus.OPEN, CheckoutStatus.EXPIRED})
PLACED = frozenset({CheckoutStatus.AWAITING_PAYMENT, CheckoutStatus.COMPLETED})


class Checkout(models.Model):
    cart = models.ForeignKey(
        "store_cart.Cart",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="checkouts",
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The logged-in shopper, if any.",
    )
    email = models.CharField(max_length=254, blank=True, help_text="Lower-case.")
    billing_address = models.JSONField(default=dict, blank=True)
    shipping_address = models.JSONField(
        default=dict, blank=True, help_text="Empty: the order ships to the billing address."
    )
    payment_method = models.CharField(max_length=40, blank=True)
    customer_note = models.TextField(blank=True)
    status = models.CharField(
        max_length=20, choices=CheckoutStatus.choices, default=CheckoutStatus.OPEN
    )
    expires_at = models.DateTimeField(
        null=True, blank=True, help_text="While open: when its hold ends."
    )
    hold_cart_id = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="The cart whose ledger reference (cart:<id>) holds stock for this checkout.",
    )
    hold_revision = models.PositiveIntegerField(
        default=0, help_text="Counts its stock changes (part of their idempotency keys)."
    )
    order = models.OneToOneField(
        "store_orders.Order",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="checkout",
    )
    payment_due_at = models.DateTimeField(
        null=True, blank=True, help_text="An unpaid order is cancelled after this."
    )
    client_address = models.CharField(
        max_length=64,
        blank=True,
        help_text="The shopper's address at its last write, as the rate limits see it: the "
        "hoarding limit counts what one address holds.",
    )
    payment_attempts = models.PositiveIntegerField(default=0)
    payment_error = models.JSONField(
        default=dict, blank=True, help_text="The last refused payment: {code, message, at}."
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["cart"],
                condition=Q(status__in=["open", "expired"]),
                name="store_checkout_one_open_per_cart",
            )
        ]
        indexes = [
            models.Index(fields=["status", "expires_at"]),
            models.Index(
                fields=["client_address"],
                condition=~Q(client_address=""),
                name="store_checkout_client_address",
            ),
            models.Index(
                fields=["payment_due_at"],
                condition=Q(payment_due_at__isnull=False),
                name="store_checkout_payment_due",
            ),
        ]

    def __str__(self) -> str:
        return f"Checkout {self.pk} ({self.status})"

    @property
    def reference(self) -> str:
        """The coupon-use ledger's reference of this checkout (and of its order)."""
        return f"checkout:{self.pk}"
