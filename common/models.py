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
