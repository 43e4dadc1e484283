"""A template staff customised, and the log of every e-mail the store sent."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class EmailTemplate(models.Model):
    """The customised parts of one e-mail type's template; an empty part is the built-in
    default (store/emails/defaults). The types are declared in code (store.emails.types)."""

    type = models.SlugField(max_length=64, unique=True)
    subject = models.TextField(blank=True, default="", help_text="Empty: the default subject.")
    body_html = models.TextField(blank=True, default="", help_text="Empty: the default HTML body.")
    body_text = models.TextField(
        blank=True,
        default="",
        help_text="Empty: the default text body, or the text of a customised HTML body.",
    )
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["type"]
        verbose_name = "e-mail template"

    def __str__(self) -> str:
        return self.type

    @property
    def customised(self) -> bool:
        return bool(self.subject or self.body_html or self.body_text)


class EmailStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class SentEmail(models.Model):
    """One e-mail the store sent (or is sending): written, queued, in the transaction of the
    change it follows; the task that sends it marks it sent or failed."""

    type = models.SlugField(max_length=64)
    recipient = models.EmailField(max_length=254)
    subject = models.CharField(max_length=255)
    status = models.CharField(
        max_length=8, choices=EmailStatus.choices, default=EmailStatus.QUEUED, db_index=True
    )
    error = models.CharField(max_length=500, blank=True, default="")
    note = models.CharField(
        max_length=500, blank=True, default="", help_text="E.g. a test, a resend, a fallback."
    )
    order = models.ForeignKey(
        "store_orders.Order",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "sent e-mail"
        indexes = [models.Index(fields=["type", "-created_at"], name="store_email_type_created")]

    def __str__(self) -> str:
        return f"{self.type} to {self.recipient} ({self.status})"
