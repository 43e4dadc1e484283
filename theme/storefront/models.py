"""The storefront's rows: theme settings, menus and their items, wishlists, newsletter
subscriptions. (VAT checks keep nothing: their results live in the cache.)"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ThemeSettings(models.Model):
    """The storefront's theme settings: only the values set explicitly (the rest are the
    defaults declared in theme.storefront.settings_schema). One row, named "storefront"."""

    name = models.SlugField(max_length=64, primary_key=True)
    values = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        verbose_name = "theme settings"
        verbose_name_plural = "theme settings"

    def __str__(self) -> str:
        return self.name


class MenuLocation(models.TextChoices):
    PRIMARY = "primary", "Primary (header)"
    SECONDARY = "secondary", "Secondary (top bar)"
    FOOTER = "footer", "Footer"
    MOBILE = "mobile", "Mobile"
    SOCIAL = "social", "Social links"


class Menu(models.Model):
    """A navigation menu shown at one location of the storefront."""

    location = models.CharField(max_length=32, choices=MenuLocation.choices, unique=True)
    name = models.CharField(max_length=100)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["location"]

    def __str__(self) -> str:
        return f"{self.name} ({self.location})"


class MenuItem(models.Model):
    """One link of a menu; `parent` nests it (at most MAX_DEPTH levels)."""

    menu = models.ForeignKey(Menu, on_delete=models.CASCADE, related_name="items")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    label = models.CharField(max_length=100)
    url = models.CharField(max_length=500, help_text="https://... or a path starting with /")
    position = models.PositiveIntegerField(default=0)
    open_in_new_tab = models.BooleanField(default=False)
    css_class = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["menu", "position", "id"]

    def __str__(self) -> str:
        return self.label


class WishlistItem(models.Model):
    """A product on a shopper's wishlist: a logged-in user's (`user`), or a guest's, keyed by
    the SHA-256 of their cart session token (`session_key`; the token itself is not kept)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    session_key = models.CharField(max_length=64, blank=True, db_index=True)
    product = models.ForeignKey("store_catalog.Product", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "product"],
                condition=Q(user__isnull=False),
                name="theme_wishlist_user_product",
            ),
            models.UniqueConstraint(
                fields=["session_key", "product"],
                condition=Q(user__isnull=True),
                name="theme_wishlist_session_product",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=False) | ~Q(session_key=""),
                name="theme_wishlist_has_owner",
            ),
        ]

    def __str__(self) -> str:
        return f"wishlist item {self.pk}"


class SubscriptionStatus(models.TextChoices):
    PENDING = "pending", "Pending confirmation"
    CONFIRMED = "confirmed", "Confirmed"
    UNSUBSCRIBED = "unsubscribed", "Unsubscribed"


class NewsletterSubscription(models.Model):
    """A newsletter address: pending until the link of its confirmation e-mail is followed
    (double opt-in)."""

    email = models.EmailField(max_length=254, unique=True)
    status = models.CharField(
        max_length=16, choices=SubscriptionStatus.choices, default=SubscriptionStatus.PENDING
    )
    created_at = models.DateTimeField(auto_now_add=True)
    confirmation_sent_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.email
