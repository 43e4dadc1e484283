"""The structured log entries this service records, and the recording's settings."""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from debugtools.choices import Level, Source


class LogEntry(models.Model):
    """One recorded log record: written by debugtools.handler (server records, on its own
    connection), by the js-log sink (client records) or by /debug/test."""

    created_at = models.DateTimeField(default=timezone.now)
    level = models.PositiveSmallIntegerField(choices=Level.choices)
    logger = models.CharField(max_length=200)
    message = models.TextField()
    request_id = models.CharField(max_length=128, blank=True, default="")
    context = models.JSONField(default=dict, blank=True)
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.SERVER)

    class Meta:
        verbose_name = "log entry"
        verbose_name_plural = "log entries"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["created_at"], name="debug_entry_created"),
            models.Index(fields=["level", "created_at"], name="debug_entry_level"),
            models.Index(fields=["logger", "created_at"], name="debug_entry_logger"),
            models.Index(fields=["request_id"], name="debug_entry_request"),
        ]

    def __str__(self) -> str:
        return f"{self.get_level_display()} {self.logger}: {self.message[:80]}"


class DebugSettings(models.Model):
    """The one row of recording settings (id 1); absent until first saved: the defaults apply."""

    level = models.PositiveSmallIntegerField(
        choices=Level.choices,
        default=Level.WARNING,
        help_text="Server log records at or above this level are recorded",
    )
    retention_days = models.PositiveSmallIntegerField(
        default=14, help_text="Entries older than this are purged (1 to 365)"
    )
    js_log_enabled = models.BooleanField(
        default=True, help_text="Whether /debug/js-log records client-side entries"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "debug settings"
        verbose_name_plural = "debug settings"
        constraints = [
            models.CheckConstraint(
                condition=models.Q(retention_days__gte=1, retention_days__lte=365),
                name="debug_settings_retention_range",
            ),
        ]

    def __str__(self) -> str:
        return "Debug settings"
