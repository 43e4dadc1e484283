"""The products a shopper (an account, else a cart session's token) looked at.

The table keeps the name it had in the modules' one app (theme_modules_*): the split into one
app per module moved the model's state, not its rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class RecentlyViewed(models.Model):
    """One product a shopper (an account, else a cart session's token) looked at."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    session_token = models.CharField(max_length=64, blank=True, db_index=True)
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    viewed_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        db_table = "theme_modules_recentlyviewed"
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
