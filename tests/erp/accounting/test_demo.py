"""The accounting demo seed: a chart, this year's fiscal year, three posted entries; again:
nothing new."""

from __future__ import annotations

import pytest

from erp.accounting import demo
from erp.accounting.models import Account, FiscalYear, JournalEntry
from tests.erp.accounting.conftest import REPORTS, ok

pytestmark = pytest.mark.django_db


def test_seed_is_idempotent_and_balanced(api):
    first = demo.seed()
    assert "3 posted now" in first[0]
    assert "0 posted now" in demo.seed()[0]
    assert Account.objects.count() == 19
    assert FiscalYear.objects.count() == 1
    assert set(JournalEntry.objects.values_list("status", flat=True)) == {"posted"}
    assert JournalEntry.objects.count() == 3
    report = ok(api.get(f"{REPORTS}/trial-balance"))
    assert report["balanced"] is True
    assert report["totals"]["debit"] == "11048.00"
