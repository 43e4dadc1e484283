"""What the AI tool endpoint keeps: each account's tool calls per UTC day (the daily limit's
truth; the per-minute limit lives in the cache)."""

from django.conf import settings
from django.db import models


class McpDailyUsage(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", editable=False
    )
    day = models.DateField(editable=False)
    calls = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name = "MCP daily usage"
        verbose_name_plural = "MCP daily usage"
        ordering = ("-day", "user_id")
        constraints = [
            models.UniqueConstraint(fields=("user", "day"), name="theme_mcp_usage_user_day"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.day}: {self.calls}"
