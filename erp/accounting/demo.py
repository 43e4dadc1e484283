"""Demo data of the ERP's accounting for `manage.py seed_demo` (idempotent by reference),
through the services: the default chart of accounts, this year's fiscal year and a few posted
entries (the opening capital, a month's rent, a cash sale with its VAT)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from django.utils import timezone

from erp.accounting import services
from erp.accounting.models import Account, FiscalYear, JournalEntry

ENTRIES = (
    ("demo:opening", "Opening capital", 1, [("1100", "10000.00", "0"), ("3100", "0", "10000.00")]),
    ("demo:rent", "Shop rent, January", 2, [("5300", "800.00", "0"), ("1100", "0", "800.00")]),
    (
        "demo:cash-sale",
        "Market stall sales",
        3,
        [("1110", "248.00", "0"), ("4100", "0", "200.00"), ("2200", "0", "48.00")],
    ),
)


def seed() -> list[str]:
    services.chart_ensure()
    today = timezone.localdate()
    year = FiscalYear.objects.filter(start_date__lte=today, end_date__gte=today).first()
    if year is None:
        year = services.fiscal_year_create(
            fields={"start_date": date(today.year, 1, 1), "end_date": date(today.year, 12, 31)}
        )
    ids = dict(Account.objects.values_list("code", "id"))
    made = 0
    for reference, memo, day, lines in ENTRIES:
        if JournalEntry.objects.filter(reference=reference).exists() or year.status != "open":
            continue
        entry = services.journal_entry_create(
            fields={
                "date": max(year.start_date, date(today.year, 1, day)),
                "reference": reference,
                "memo": memo,
                "lines": [
                    {"account_id": ids[code], "debit": Decimal(debit), "credit": Decimal(credit)}
                    for code, debit, credit in lines
                ],
            }
        )
        services.journal_entry_post(entry_id=entry.pk)
        made += 1
    return [
        f"ERP accounting: a chart of {Account.objects.count()} accounts, fiscal year "
        f"{year.name}, {JournalEntry.objects.filter(reference__startswith='demo:').count()} "
        f"demo entries ({made} posted now)"
    ]
