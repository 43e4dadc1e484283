"""A store customer: the person orders are for, optionally linked to a user account."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


class Customer(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="store_customer",
        help_text="The account this customer logs in with (none for guests).",
    )
    email = models.EmailField("e-mail address", max_length=254, unique=True)
    first_name = models.CharField(max_length=100, blank=True)
    last_name = models.CharField(max_length=100, blank=True)
    company = models.CharField(max_length=200, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    note = models.TextField(blank=True, help_text="For staff only.")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(email=Lower("email")), name="store_customer_email_lowercase"
            )
        ]

    def __str__(self) -> str:
        return f"{self.full_name} <{self.email}>" if self.full_name else self.email

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()
