"""The theme modules' rows: recently viewed products, bundles, loyalty points, promotion rules,
quote requests, B2B customer groups and abandoned-cart recoveries. Money is Decimal."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

PERCENT = [MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))]
POSITIVE = [MinValueValidator(Decimal(0))]


class RecentlyViewed(models.Model):
    """One product a shopper (an account, else a cart session's token) looked at."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    session_token = models.CharField(max_length=64, blank=True, db_index=True)
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    viewed_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "product"], condition=Q(user__isnull=False), name="rv_user_product"
            ),
            models.UniqueConstraint(
                fields=["session_token", "product"],
                condition=Q(user__isnull=True),
                name="rv_session_product",
            ),
        ]
        ordering = ["-viewed_at", "-pk"]
        verbose_name = "recently viewed product"
        verbose_name_plural = "recently viewed products"

    def __str__(self) -> str:
        return f"{self.product_id} viewed {self.viewed_at:%Y-%m-%d %H:%M}"


class Bundle(models.Model):
    """Products sold together at a discount (percent off the sum of their prices)."""

    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    active = models.BooleanField(default=True)
    discount_percent = models.DecimalField(
        max_digits=5, decimal_places=2, default=Decimal(0), validators=PERCENT
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["title", "pk"]

    def __str__(self) -> str:
        return self.title


class BundleItem(models.Model):
    bundle = models.ForeignKey(Bundle, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    quantity = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["bundle", "product"], name="bundle_item_product")
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.product_id}"


class PointsKind(models.TextChoices):
    EARNED = "earned", "Earned on a paid order"
    REVERSED = "reversed", "Reversed on a refund"


class PointsEntry(models.Model):
    """One change of a customer's loyalty points; at most one of each kind per order."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="theme_points"
    )
    order = models.ForeignKey(
        "store_orders.Order", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=PointsKind.choices)
    points = models.IntegerField()
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["order", "kind"], condition=Q(order__isnull=False), name="points_per_order"
            )
        ]
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "points entries"

    def __str__(self) -> str:
        return f"{self.points:+d} points ({self.kind})"


class PromotionKind(models.TextChoices):
    PERCENT = "percent", "Percent off the subtotal"
    FIXED = "fixed", "Fixed amount off the cart"


class Promotion(models.Model):
    """An automatic cart promotion: no code; applies while active, in its dates, to a cart
    whose subtotal reaches `min_subtotal`."""

    name = models.CharField(max_length=200)
    description = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=10, choices=PromotionKind.choices)
    value = models.DecimalField(max_digits=12, decimal_places=2, validators=POSITIVE)
    min_subtotal = models.DecimalField(
        max_digits=12, decimal_places=2, default=Decimal(0), validators=POSITIVE
    )
    active = models.BooleanField(default=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    priority = models.PositiveIntegerField(default=10)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["priority", "pk"]

    def __str__(self) -> str:
        return self.name


class QuoteStatus(models.TextChoices):
    NEW = "new", "New"
    ANSWERED = "answered", "Answered"
    CLOSED = "closed", "Closed"


class Quote(models.Model):
    """A request for quote: products and quantities with the shopper's contact details."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    name = models.CharField(max_length=200)
    email = models.EmailField()
    company = models.CharField(max_length=200, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    message = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=QuoteStatus.choices, default=QuoteStatus.NEW)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Quote {self.pk} ({self.email})"


class QuoteItem(models.Model):
    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    quantity = models.PositiveIntegerField(validators=[MinValueValidator(1)])

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.product_id}"


class CustomerGroup(models.Model):
    """A B2B customer group: its members pay catalogue prices less `discount_percent`."""

    name = models.CharField(max_length=100, unique=True)
    description = models.CharField(max_length=500, blank=True)
    discount_percent = models.DecimalField(
        max_digits=5, decimal_places=2, default=Decimal(0), validators=PERCENT
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="CustomerGroupMember", related_name="+", blank=True
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class CustomerGroupMember(models.Model):
    group = models.ForeignKey(CustomerGroup, on_delete=models.CASCADE, related_name="memberships")
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="theme_group_membership"
    )

    def __str__(self) -> str:
        return f"{self.user_id} in {self.group_id}"


class CartRecovery(models.Model):
    """The recovery e-mail of an abandoned cart: one per idle spell (`cart_updated_at`)."""

    cart = models.OneToOneField("store_cart.Cart", on_delete=models.CASCADE, related_name="+")
    email = models.EmailField()
    cart_updated_at = models.DateTimeField()
    sent_at = models.DateTimeField(default=timezone.now)
    restored_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "cart recovery"
        verbose_name_plural = "cart recoveries"

    def __str__(self) -> str:
        return f"Recovery of cart {self.cart_id}"
