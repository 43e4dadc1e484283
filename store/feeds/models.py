"""Marketplace feeds' models: each marketplace's feed (its settings, its secret URL token and
its generation status), the generated file, and the store's categories mapped to each
marketplace's taxonomy."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from store.catalog.models import Category
from store.common.money import MoneyModelField


class Marketplace(models.TextChoices):
    GOOGLE = "google", "Google Merchant Center"
    SKROUTZ = "skroutz", "Skroutz"


class FeedStatus(models.TextChoices):
    NEVER = "never", "Never generated"
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Generating"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class Feed(models.Model):
    """One marketplace's feed: its settings (written by services.feed_update), its secret URL
    token (services.feed_rotate_token) and what the last generation did (services.generate)."""

    marketplace = models.CharField(max_length=16, choices=Marketplace.choices, unique=True)
    enabled = models.BooleanField(default=False)
    include_out_of_stock = models.BooleanField(default=False)
    # Empty: every category; else these categories and their descendants.
    category_ids = models.JSONField(default=list, blank=True)
    shipping_price = MoneyModelField(null=True, blank=True)
    shipping_country = models.CharField(max_length=2, blank=True, default="")
    availability_in_stock = models.CharField(max_length=64, blank=True, default="")
    availability_backorder = models.CharField(max_length=64, blank=True, default="")
    availability_out_of_stock = models.CharField(max_length=64, blank=True, default="")
    token = models.CharField(max_length=64)
    token_rotated_at = models.DateTimeField(default=timezone.now)

    status = models.CharField(max_length=16, choices=FeedStatus.choices, default=FeedStatus.NEVER)
    requested_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    generated_at = models.DateTimeField(null=True, blank=True)
    item_count = models.PositiveIntegerField(default=0)
    skipped_count = models.PositiveIntegerField(default=0)
    # [{product_id, variant_id, sku, title, missing: [attribute, ...]}]: the first
    # FEEDS_SKIPPED_KEPT of them.
    skipped = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["marketplace"]

    def __str__(self) -> str:
        return self.get_marketplace_display()


class FeedFile(models.Model):
    """The last generated feed of a marketplace, swapped whole in one write: what
    GET .../feed.xml serves (ETag: the SHA-256 of the content, Skroutz's created_at aside;
    a generation giving the same ETag keeps the stored bytes)."""

    feed = models.OneToOneField(Feed, on_delete=models.CASCADE, related_name="file")
    content = models.BinaryField()
    # The same bytes gzipped (mtime 0: the same content gives the same file), served at
    # feed.xml.gz (Skroutz wants feeds over 10 MB compressed).
    compressed = models.BinaryField(default=b"")
    etag = models.CharField(max_length=64)
    size = models.PositiveBigIntegerField(default=0)
    # When the content last changed (Last-Modified): a regeneration giving the same bytes
    # keeps it, so If-Modified-Since and If-None-Match agree.
    modified_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.feed.marketplace} feed ({self.size} bytes)"


class CategoryMapping(models.Model):
    """A store category mapped to a marketplace's category (Google: a taxonomy id or full
    path; Skroutz: a category path)."""

    marketplace = models.CharField(max_length=16, choices=Marketplace.choices)
    category = models.ForeignKey(Category, on_delete=models.CASCADE, related_name="+")
    value = models.CharField(max_length=500)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["marketplace", "category_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["marketplace", "category"], name="store_feeds_mapping_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.marketplace}: {self.category_id} -> {self.value}"
