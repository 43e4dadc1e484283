"""The recovery e-mails of abandoned carts.

The table keeps the name it had in the modules' one app (theme_modules_*): the split into one
app per module moved the model's state, not its rows."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class CartRecovery(models.Model):
    """The recovery e-mail of an abandoned cart: one per idle spell (`cart_updated_at`)."""

    cart = models.OneToOneField("store_cart.Cart", on_delete=models.CASCADE, related_name="+")
    email = models.EmailField()
    cart_updated_at = models.DateTimeField()
    sent_at = models.DateTimeField(default=timezone.now)
    restored_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "theme_modules_cartrecovery"
        verbose_name = "cart recovery"
        verbose_name_plural = "cart recoveries"

    def __str__(self) -> str:
        return f"Recovery of cart {self.cart_id}"
