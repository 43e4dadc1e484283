from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class Client(models.Model):
    """A reseller's or agency's customer. Not an account: it cannot log in.

    The e-mail address is unique system-wide (whoever owns the client) and stored lower-case.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="clients"
    )
    email = models.EmailField("e-mail address", max_length=254, unique=True)
    name = models.CharField(max_length=150)
    company = models.CharField(
        max_length=200, blank=True, help_text="Empty: none (null on the API)."
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["owner", "name"])]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(email=Lower("email")), name="clients_client_email_lowercase"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>"
