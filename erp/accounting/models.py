"""Double-entry accounting: the chart of accounts, fiscal years, journal entries with their
lines, and the record of each business event's automatic posting.

Rows are written by erp.accounting.services only. A posted entry is never changed or deleted:
it is corrected by a reversing entry. Amounts are money (two places) in the store's currency;
each line is a debit or a credit, never both.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from erp.accounting.choices import (
    AccountRole,
    AccountType,
    EntryKind,
    EntryStatus,
    FiscalYearStatus,
    PartnerType,
    PostingStatus,
    SourceType,
)
from store.common.money import MoneyModelField


class Account(models.Model):
    """An account of the chart (Odoo: account.account; ERPNext: Account, with its parent)."""

    code = models.CharField(max_length=20, unique=True)
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=10, choices=AccountType.choices)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    role = models.CharField(
        max_length=20,
        choices=AccountRole.choices,
        blank=True,
        help_text="The account the automatic postings use for this role (one each).",
    )
    description = models.CharField(max_length=500, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["code"]
        constraints = [
            models.UniqueConstraint(
                fields=["role"], condition=~Q(role=""), name="erp_accounting_role_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class FiscalYear(models.Model):
    """A fiscal year: entries dated inside it are numbered in its series (1, 2, 3... without
    gaps, in the order they are posted); a closed year takes no more postings."""

    name = models.CharField(max_length=40, unique=True)
    start_date = models.DateField()
    end_date = models.DateField()
    status = models.CharField(
        max_length=6, choices=FiscalYearStatus.choices, default=FiscalYearStatus.OPEN
    )
    next_number = models.PositiveIntegerField(default=1, editable=False)
    closed_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["start_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(end_date__gte=models.F("start_date")),
                name="erp_accounting_year_dates",
            )
        ]

    def __str__(self) -> str:
        return self.name


class JournalEntry(models.Model):
    fiscal_year = models.ForeignKey(
        FiscalYear, null=True, blank=True, on_delete=models.PROTECT, related_name="entries"
    )
    number = models.PositiveIntegerField(null=True, blank=True, editable=False)
    full_number = models.CharField(max_length=60, blank=True, editable=False, db_index=True)
    date = models.DateField(db_index=True)
    status = models.CharField(
        max_length=6, choices=EntryStatus.choices, default=EntryStatus.DRAFT, db_index=True
    )
    kind = models.CharField(max_length=10, choices=EntryKind.choices, default=EntryKind.MANUAL)
    reference = models.CharField(max_length=100, blank=True)
    memo = models.CharField(max_length=500, blank=True)
    reverses = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="reversed_by",
        help_text="The posted entry this one reverses (once only).",
    )
    source_type = models.CharField(max_length=20, choices=SourceType.choices, blank=True)
    source_id = models.CharField(max_length=40, blank=True)
    posted_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-date", "-id"]
        verbose_name_plural = "journal entries"
        constraints = [
            models.UniqueConstraint(
                fields=["fiscal_year", "number"],
                condition=Q(number__isnull=False),
                name="erp_accounting_entry_number_unique",
            ),
            models.CheckConstraint(
                condition=Q(status=EntryStatus.DRAFT) | Q(number__isnull=False),
                name="erp_accounting_posted_numbered",
            ),
        ]
        indexes = [models.Index(fields=["status", "date"])]

    def __str__(self) -> str:
        return self.full_number or f"Draft {self.pk}"


class JournalLine(models.Model):
    entry = models.ForeignKey(JournalEntry, on_delete=models.CASCADE, related_name="lines")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="lines")
    debit = MoneyModelField(default=0)
    credit = MoneyModelField(default=0)
    description = models.CharField(max_length=255, blank=True)
    partner_type = models.CharField(max_length=10, choices=PartnerType.choices, blank=True)
    partner_id = models.BigIntegerField(null=True, blank=True)
    partner_name = models.CharField(max_length=200, blank=True)
    due_date = models.DateField(
        null=True, blank=True, help_text="Ageing of receivables and payables (empty: the date)."
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["entry_id", "position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(debit__gt=0) & Q(credit=0)) | (Q(credit__gt=0) & Q(debit=0)),
                name="erp_accounting_line_debit_xor_credit",
            )
        ]
        indexes = [models.Index(fields=["account", "entry"])]

    def __str__(self) -> str:
        side = f"Dr {self.debit}" if self.debit else f"Cr {self.credit}"
        return f"{self.account_id} {side}"


class AutoPosting(models.Model):
    """One business event's posting, once: (source_type, source_id, kind) is unique, so a
    repeated event posts nothing. A failure (no open year, a missing account) is kept here,
    visible in the admin with its error, and posted again by the admin's retry."""

    source_type = models.CharField(max_length=20, choices=SourceType.choices)
    source_id = models.CharField(max_length=40)
    kind = models.CharField(max_length=20)
    status = models.CharField(max_length=6, choices=PostingStatus.choices)
    entry = models.OneToOneField(
        JournalEntry, null=True, blank=True, on_delete=models.PROTECT, related_name="auto_posting"
    )
    payload = models.JSONField(default=dict, blank=True, help_text="The event, to post again.")
    error = models.CharField(max_length=500, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source_type", "source_id", "kind"], name="erp_accounting_posting_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.source_type}:{self.source_id}:{self.kind} ({self.status})"
