"""Automatic cart promotions. Money is Decimal.

The table keeps the name it had in the modules' one app (theme_modules_*): the split into one
app per module moved the model's state, not its rows."""

from __future__ import annotations

from decimal import Decimal

from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone

POSITIVE = [MinValueValidator(Decimal(0))]


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
        db_table = "theme_modules_promotion"
        ordering = ["priority", "pk"]

    def __str__(self) -> str:
        return self.name
