"""Loyalty points: one row per change of a customer's points.

The table keeps the name it had in the modules' one app (theme_modules_*): the split into one
app per module moved the model's state, not its rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


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
        db_table = "theme_modules_pointsentry"
        constraints = [
            models.UniqueConstraint(
                fields=["order", "kind"], condition=Q(order__isnull=False), name="points_per_order"
            )
        ]
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "points entries"

    def __str__(self) -> str:
        return f"{self.points:+d} points ({self.kind})"
