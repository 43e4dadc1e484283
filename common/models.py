from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.db import models
from django.utils import timezone


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one caller: the request it belongs to and, once done, its answer.

    The client's key is stored only as a hash, and the stored answer is encrypted with a key
    derived from it, so a database dump alone does not reveal what was answered (an answer may
    carry a secret shown once, such as a new API key).
    """

    class State(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        COMPLETED = "completed", "Completed"

    scope = models.CharField(max_length=80, help_text="account:<id> or address:<ip>")
    key_hash = models.CharField(max_length=64)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of method, path and body")
    state = models.CharField(max_length=16, choices=State.choices, default=State.IN_PROGRESS)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    response_body = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    locked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["scope", "key_hash"], name="common_idempotency_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.scope} {self.key_hash[:12]} ({self.state})"


class AuditEntry(models.Model):
    """One change of an audited row (a licence, an order, a payment): who made it, through
    which door, and each field's old and new value.

    Written by the services in the transaction that makes the change (common.audit), so that
    changes made with queryset `.update()` calls are recorded as well as saves.
    """

    class Via(models.TextChoices):
        ADMIN = "admin", "Admin"
        API = "api", "API"
        TASK = "task", "Task"
        SYSTEM = "system", "Command or shell"

    content_type = models.ForeignKey(
        "contenttypes.ContentType", on_delete=models.CASCADE, related_name="+"
    )
    object_id = models.PositiveBigIntegerField()
    target = GenericForeignKey("content_type", "object_id")
    object_repr = models.CharField(max_length=200)
    action = models.CharField(max_length=40, help_text="created, changed, revoked, deleted, ...")
    changes = models.JSONField(
        default=dict, blank=True, help_text="{field: [old value, new value]}"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    actor_label = models.CharField(
        max_length=254, help_text="The account's e-mail address then, or system, or anonymous."
    )
    via = models.CharField(max_length=10, choices=Via.choices)
    context = models.CharField(
        max_length=200, blank=True, help_text="The admin page, API route or task."
    )
    note = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "audit entry"
        verbose_name_plural = "audit entries"
        indexes = [
            models.Index(fields=["content_type", "object_id", "created_at"]),
            models.Index(fields=["created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.object_repr}: {self.action} by {self.actor_label}"
