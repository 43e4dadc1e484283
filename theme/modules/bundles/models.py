"""Bundles: products sold together at a discount (percent off the sum of their prices).

The tables keep the names they had in the modules' one app (theme_modules_*): the split into
one app per module moved the models' state, not their rows."""

from __future__ import annotations

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

PERCENT = [MinValueValidator(Decimal(0)), MaxValueValidator(Decimal(100))]


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
        db_table = "theme_modules_bundle"
        ordering = ["title", "pk"]

    def __str__(self) -> str:
        return self.title


class BundleItem(models.Model):
    bundle = models.ForeignKey(Bundle, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    quantity = models.PositiveIntegerField(default=1, validators=[MinValueValidator(1)])

    class Meta:
        db_table = "theme_modules_bundleitem"
        constraints = [
            models.UniqueConstraint(fields=["bundle", "product"], name="bundle_item_product")
        ]
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.product_id}"
