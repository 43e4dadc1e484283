"""A page's layout (one per page/post id), and saved templates reusable across pages.

Both hold a block tree (theme.builder.blocks: validated by the services before any save) and
a version, raised by each save: a write names the version it read and a stale one answers 409
(optimistic concurrency)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class LayoutStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    PUBLISHED = "published", "Published"


class Layout(models.Model):
    page_id = models.PositiveBigIntegerField(
        unique=True, help_text="The page or post this layout belongs to."
    )
    blocks = models.JSONField(default=list, blank=True)
    status = models.CharField(
        max_length=16, choices=LayoutStatus.choices, default=LayoutStatus.DRAFT
    )
    version = models.PositiveIntegerField(default=1)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who first saved it: with edit_post alone, only they may change it.",
    )
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["page_id"]

    def __str__(self) -> str:
        return f"Layout of page {self.page_id} (v{self.version}, {self.status})"


class LayoutTemplate(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, max_length=2000)
    blocks = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = "layout template"

    def __str__(self) -> str:
        return self.name
