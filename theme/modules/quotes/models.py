"""Requests for quote: products and quantities with the shopper's contact details.

The tables keep the names they had in the modules' one app (theme_modules_*): the split into
one app per module moved the models' state, not their rows."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils import timezone


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
        db_table = "theme_modules_quote"
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Quote {self.pk} ({self.email})"


class QuoteItem(models.Model):
    quote = models.ForeignKey(Quote, on_delete=models.CASCADE, related_name="items")
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    quantity = models.PositiveIntegerField(validators=[MinValueValidator(1)])

    class Meta:
        db_table = "theme_modules_quoteitem"
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.quantity} x {self.product_id}"
