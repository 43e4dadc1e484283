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


class OutboxMessage(models.Model):
    """A task to publish to the broker, written in the transaction of the change it follows.

    The row commits with the business write or not at all; on commit the publisher hands the
    task to the broker and marks the row sent. A row the broker did not take (down, frozen)
    waits until it is due again and the beat's drain publishes it (common.outbox). The worker
    marks the row acknowledged once the task has run; a row sent and never acknowledged (the
    broker lost the message: Redis restarted empty) is sent again by the drain after the
    broker's visibility timeout. Tasks are idempotent, so the rare double publish is harmless.

    The arguments are stored encrypted (they can carry an e-mail with a one-time link) and are
    emptied once the task is acknowledged; acknowledged rows are purged after a day.
    """

    task = models.CharField(max_length=200, help_text="Registered Celery task name")
    payload = models.BinaryField(
        help_text="Encrypted JSON {args, kwargs}; emptied once acknowledged"
    )
    dedupe_key = models.CharField(
        max_length=255,
        blank=True,
        default="",
        help_text="While a row with this key waits, a new enqueue with it joins that row",
    )
    created_at = models.DateTimeField(default=timezone.now)
    due_at = models.DateTimeField(default=timezone.now)
    claimed_until = models.DateTimeField(
        null=True, blank=True, help_text="A publisher is sending it until then"
    )
    sent_at = models.DateTimeField(null=True, blank=True)
    acked_at = models.DateTimeField(
        null=True, blank=True, help_text="The task ran (a worker acknowledged it)"
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text="Failed publish attempts and sends never acknowledged"
    )
    last_error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(
                fields=["due_at", "id"],
                condition=models.Q(sent_at__isnull=True),
                name="common_outbox_unsent",
            ),
            models.Index(
                fields=["dedupe_key"],
                condition=models.Q(sent_at__isnull=True) & ~models.Q(dedupe_key=""),
                name="common_outbox_dedupe",
            ),
            models.Index(fields=["sent_at"], name="common_outbox_sent"),
            models.Index(
                fields=["sent_at"],
                condition=models.Q(sent_at__isnull=False, acked_at__isnull=True),
                name="common_outbox_unacked",
            ),
        ]

    def __str__(self) -> str:
        state = "done" if self.acked_at else "sent" if self.sent_at else "waiting"
        return f"{self.task} #{self.pk} ({state})"


class DoneMarker(models.Model):
    """A unit of work that must happen once (e.g. one e-mail), recorded before it is done so
    that a redelivered task finds it and does nothing."""

    key = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    def __str__(self) -> str:
        return self.key


class WorkerHeartbeat(models.Model):
    """When a Celery worker last ran the beat's heartbeat task (shown by /healthz)."""

    hostname = models.CharField(max_length=255, unique=True)
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} at {self.seen_at:%Y-%m-%d %H:%M:%S}"


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
