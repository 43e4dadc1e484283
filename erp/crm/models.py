"""CRM: contacts (people and companies the business deals with, optionally linked to a store
customer), leads moving through a fixed pipeline with their stage history, activities (calls,
meetings, tasks, e-mails) and saved segments.

Rows are written by erp.crm.services only. Lead values are money (two places, Decimal).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from erp.crm.choices import ActivityKind, LeadSource, LeadStage, SegmentTarget
from store.common.money import MoneyModelField


class Contact(models.Model):
    """A person or company (Odoo: a partner). `customer` links the store customer it was
    imported from or converted into (one contact per customer)."""

    name = models.CharField(max_length=200)
    email = models.EmailField("e-mail address", max_length=254, blank=True, db_index=True)
    phone = models.CharField(max_length=40, blank=True)
    company = models.CharField(max_length=200, blank=True)
    job_title = models.CharField(max_length=100, blank=True)
    website = models.URLField(max_length=255, blank=True)
    city = models.CharField(max_length=100, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2")
    notes = models.TextField(max_length=5000, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The salesperson in charge.",
    )
    customer = models.OneToOneField(
        "store_customers.Customer",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="crm_contact",
        help_text="The store customer this contact is.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["name", "id"]), models.Index(fields=["company"])]

    def __str__(self) -> str:
        return f"{self.name} <{self.email}>" if self.email else self.name


class Lead(models.Model):
    """An opportunity: a possible sale of `value` to a contact (or to the person named on the
    lead, until it is converted), moving through the pipeline's stages."""

    title = models.CharField(max_length=200)
    contact = models.ForeignKey(
        Contact, null=True, blank=True, on_delete=models.PROTECT, related_name="leads"
    )
    contact_name = models.CharField(
        max_length=200, blank=True, help_text="Who, before a contact exists."
    )
    email = models.EmailField("e-mail address", max_length=254, blank=True)
    phone = models.CharField(max_length=40, blank=True)
    company = models.CharField(max_length=200, blank=True)
    value = MoneyModelField(default=0, help_text="Expected revenue.")
    currency = models.CharField(max_length=3, help_text="ISO 4217")
    stage = models.CharField(
        max_length=16, choices=LeadStage.choices, default=LeadStage.NEW, db_index=True
    )
    probability = models.PositiveSmallIntegerField(default=10, help_text="0-100 %")
    expected_close_date = models.DateField(null=True, blank=True)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    source = models.CharField(max_length=16, choices=LeadSource.choices, blank=True)
    lost_reason = models.CharField(max_length=500, blank=True)
    notes = models.TextField(max_length=5000, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    converted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(probability__lte=100), name="erp_crm_lead_probability"
            ),
            models.CheckConstraint(condition=Q(value__gte=0), name="erp_crm_lead_value"),
        ]
        indexes = [models.Index(fields=["stage", "currency"])]

    def __str__(self) -> str:
        return self.title


class LeadStageChange(models.Model):
    """One move of a lead between stages (its history; the first row is its creation)."""

    lead = models.ForeignKey(Lead, on_delete=models.CASCADE, related_name="stage_changes")
    from_stage = models.CharField(max_length=16, choices=LeadStage.choices, blank=True)
    to_stage = models.CharField(max_length=16, choices=LeadStage.choices)
    note = models.CharField(max_length=500, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["lead_id", "changed_at", "id"]

    def __str__(self) -> str:
        return f"{self.lead_id}: {self.from_stage or '-'} -> {self.to_stage}"


class Activity(models.Model):
    """A call, meeting, task or e-mail to do by `due_at`, about a contact and/or a lead."""

    kind = models.CharField(max_length=8, choices=ActivityKind.choices)
    subject = models.CharField(max_length=200)
    note = models.TextField(max_length=5000, blank=True)
    due_at = models.DateTimeField(db_index=True)
    done = models.BooleanField(default=False)
    done_at = models.DateTimeField(null=True, blank=True)
    contact = models.ForeignKey(
        Contact, null=True, blank=True, on_delete=models.CASCADE, related_name="activities"
    )
    lead = models.ForeignKey(
        Lead, null=True, blank=True, on_delete=models.CASCADE, related_name="activities"
    )
    assigned_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["due_at", "id"]
        verbose_name_plural = "activities"
        constraints = [
            models.CheckConstraint(
                condition=Q(contact__isnull=False) | Q(lead__isnull=False),
                name="erp_crm_activity_linked",
            )
        ]
        indexes = [models.Index(fields=["done", "due_at"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.subject}"


class Segment(models.Model):
    """A saved filter over contacts or store customers: `rules` is a validated structure
    `{"match": "all"|"any", "conditions": [{"field", "op", "value"}]}` (erp.crm.segments)."""

    name = models.CharField(max_length=200, unique=True)
    description = models.CharField(max_length=500, blank=True)
    target = models.CharField(max_length=10, choices=SegmentTarget.choices)
    rules = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class CustomerRfm(models.Model):
    """A store customer's paid orders in one currency (what RFM scores): how many, their
    totals' sum and the last one's time. A rollup: RFM ranks these rows, one per customer,
    instead of grouping every order on each request. erp.crm.rollups keeps it from the order
    writes (in their transaction) and `rebuild_crm_rollups` recounts it; a row whose
    customer has no paid order left stays with frequency 0 (RFM leaves it out)."""

    customer = models.ForeignKey(
        "store_customers.Customer", on_delete=models.CASCADE, related_name="+"
    )
    currency = models.CharField(max_length=3)
    frequency = models.IntegerField(default=0, help_text="Paid orders.")
    monetary = models.DecimalField(
        max_digits=18, decimal_places=2, default=0, help_text="Their totals' sum."
    )
    last_order_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "customer RFM figures"
        verbose_name_plural = "customers' RFM figures"
        constraints = [
            models.UniqueConstraint(fields=["customer", "currency"], name="erp_crm_rfm_key")
        ]
        # /crm/rfm's pages: the ranked rows of a currency in each column's order, read by
        # LIMIT/OFFSET without sorting the others (a descending order reads one backwards)
        indexes = [
            models.Index(
                fields=["currency", column, "customer"],
                condition=Q(frequency__gt=0),
                name=f"erp_crm_rfm_{name}",
            )
            for column, name in (
                ("monetary", "monetary"),
                ("frequency", "frequency"),
                ("last_order_at", "last_order"),
            )
        ]

    def __str__(self) -> str:
        return f"Customer {self.customer_id} {self.currency}: {self.frequency}"
