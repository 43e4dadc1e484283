"""A store customer: the person orders are for, optionally linked to a user account, and the
billing and shipping addresses saved for them."""

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
    anonymised_at = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="Set when the customer was deleted while having orders: its personal data "
        "was erased, its orders kept.",
    )
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


class AddressType(models.TextChoices):
    BILLING = "billing", "Billing"
    SHIPPING = "shipping", "Shipping"


class CustomerAddress(models.Model):
    """A saved billing or shipping address of a customer (the keys of
    store.common.addresses.Address, stored as its non-empty keys). At most one address of each
    type is the default: the one the account pages and the checkout offer first."""

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="addresses")
    type = models.CharField(max_length=8, choices=AddressType.choices)
    is_default = models.BooleanField(default=False)
    address = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["customer_id", "type", "-is_default", "id"]
        verbose_name_plural = "customer addresses"
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "type"],
                condition=models.Q(is_default=True),
                name="store_customer_address_one_default",
            ),
            models.CheckConstraint(
                condition=models.Q(type__in=["billing", "shipping"]),
                name="store_customer_address_type",
            ),
        ]

    def __str__(self) -> str:
        parts = [self.address.get("address_1", ""), self.address.get("city", "")]
        text = ", ".join(part for part in parts if part) or f"Address {self.pk}"
        return f"{self.type}: {text}"
