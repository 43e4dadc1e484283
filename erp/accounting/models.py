"""Double-entry accounting: the chart of accounts, fiscal years, journal entries with their
lines, and the record of each business event's automatic posting.

Rows are written by erp.accounting.services only. A posted entry is never changed or deleted:
it is corrected by a reversing entry. Amounts are money (two places) in the store's currency;
each line is a debit or a credit, never both.

AccountBalance keeps, per account, the sums of the posted lines by block of days, so that the
reports read a few rows per account whatever the number of lines: a block of level L holds the
2**L days from a multiple of 2**L (days counted as `date.toordinal()`), for L in
0..MAX_LEVEL, so any range of days is covered by at most two blocks per level below the top
and a run of top-level blocks (`cover`). `block` (start * 16 + level) names a block in one
column, so that a range's blocks are one IN list plus one range of top-level starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

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


# --- Rollups: the posted lines' sums per account and block of days -------------------------------

MAX_LEVEL = 12  # blocks of up to 4096 days: a hundred years are some ten top-level blocks


def day_number(day: date) -> int:
    return day.toordinal()


def block_key(level: int, start: int) -> int:
    return start * 16 + level


def levels(day: int) -> list[tuple[int, int, int]]:
    """The (block, level, start) of every block that holds `day`, one per level."""
    starts = [(level, day - day % (1 << level)) for level in range(MAX_LEVEL + 1)]
    return [(block_key(level, start), level, start) for level, start in starts]


@dataclass(frozen=True)
class Cover:
    """The blocks whose union is exactly a range of days: those of `keys` (below the top
    level) and the top-level blocks starting in top_from..top_until (excluded), if any."""

    keys: tuple[int, ...]
    top_from: int = 0
    top_until: int = 0

    @property
    def empty(self) -> bool:
        return not self.keys and self.top_from >= self.top_until


def _blocks(first: int, last: int, below: int) -> list[int]:
    """The fewest blocks of levels under `below` covering first..last (included)."""
    keys = []
    while first <= last:
        level = below - 1
        while level and (first % (1 << level) or first + (1 << level) - 1 > last):
            level -= 1
        keys.append(block_key(level, first))
        first += 1 << level
    return keys


def cover(first: date | None, last: date | None) -> Cover:
    """The blocks covering the days first..last, both included (None: from the first day,
    to the last day there is). At most 2 * MAX_LEVEL keys and one run of top-level blocks,
    whatever the length of the range."""
    low = day_number(first) if first else day_number(date.min)
    high = day_number(last) if last else day_number(date.max)
    if low > high:
        return Cover(keys=())
    size = 1 << MAX_LEVEL
    top_from = -(-low // size) * size  # the first top-level start at or after `low`
    top_until = (high + 1) // size * size  # the end of the last top-level block inside
    if top_from >= top_until:
        return Cover(keys=tuple(_blocks(low, high, MAX_LEVEL)))
    keys = _blocks(low, top_from - 1, MAX_LEVEL) + _blocks(top_until, high, MAX_LEVEL)
    return Cover(keys=tuple(keys), top_from=top_from, top_until=top_until)


class AccountBalance(models.Model):
    """The sums of an account's posted lines dated in a block of days, those of closing
    entries apart (the profit and loss leaves them out). Written only by
    erp.accounting.services.balances, in the transaction that posts the entry (posted
    entries never change, so a posting only adds), and recounted from the lines by its
    `rebuild` (the `rebuild_account_balances` command). A row exists when at least one posted
    line is counted in it, even if its sums are zero: the reports list the accounts that have
    lines, as they did when they read the lines."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="balances")
    block = models.BigIntegerField(help_text="start * 16 + level.")
    level = models.PositiveSmallIntegerField()
    start = models.IntegerField(help_text="First day of the block (date.toordinal()).")
    closing = models.BooleanField(help_text="The sums of closing entries' lines.")
    debit = models.DecimalField(max_digits=18, decimal_places=2, default=0)
    credit = models.DecimalField(max_digits=18, decimal_places=2, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["block", "account", "closing"], name="erp_accounting_balance_key"
            )
        ]
        indexes = [models.Index(fields=["level", "start"], name="erp_accounting_balance_top")]

    def __str__(self) -> str:
        return f"{self.account_id} L{self.level}@{date.fromordinal(self.start)}"
