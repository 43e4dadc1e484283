"""The accounting admin: pages render; accounts and fiscal years are written through the
services; entries are posted and reversed, years closed and failed postings retried by
actions that call the services."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from erp.accounting import services
from erp.accounting.models import Account, AutoPosting, FiscalYear, JournalEntry

pytestmark = pytest.mark.django_db


def _ids():
    services.chart_ensure()
    return dict(Account.objects.values_list("code", "id"))


def _draft(day=date(2026, 5, 1), amount="10.00"):
    ids = _ids()
    return services.journal_entry_create(
        fields={
            "date": day,
            "lines": [
                {"account_id": ids["1100"], "debit": Decimal(amount)},
                {"account_id": ids["3100"], "credit": Decimal(amount)},
            ],
        }
    )


def _year(y: int = 2026):
    return services.fiscal_year_create(
        fields={"name": str(y), "start_date": date(y, 1, 1), "end_date": date(y, 12, 31)}
    )


def test_every_page_renders(admin_client):
    year = _year()
    entry = _draft()
    services.journal_entry_post(entry_id=entry.pk)
    posting = services.event_post(
        source_type="payment",
        source_id=1,
        kind="payment",
        event={"payment_id": 1, "order_id": 1, "amount": "5.00", "date": "2026-05-02"},
    )
    for name, obj in (
        ("account", Account.objects.first()),
        ("fiscalyear", year),
        ("journalentry", entry),
        ("autoposting", posting),
    ):
        assert (
            admin_client.get(reverse(f"admin:erp_accounting_{name}_changelist")).status_code == 200
        )
        change = admin_client.get(reverse(f"admin:erp_accounting_{name}_change", args=[obj.pk]))
        assert change.status_code == 200, name
    for name in ("journalentry", "autoposting"):
        assert admin_client.get(reverse(f"admin:erp_accounting_{name}_add")).status_code == 403


def test_accounts_and_years_go_through_the_services(admin_client):
    ids = _ids()
    add = reverse("admin:erp_accounting_account_add")
    form = {"code": "1150", "name": "Petty cash", "type": "asset", "parent": ids["2000"]}
    form |= {"role": "", "description": "", "is_active": "on"}
    response = admin_client.post(add, form)
    assert response.status_code == 200  # the parent is a liability: the form again
    assert "parent" in response.context["adminform"].form.errors
    form["parent"] = ids["1000"]
    assert admin_client.post(add, form).status_code == 302
    assert Account.objects.get(code="1150").parent_id == ids["1000"]
    # a role account is not deleted (409 in_use shown as a message)
    admin_client.post(
        reverse("admin:erp_accounting_account_delete", args=[ids["1200"]]), {"post": "yes"}
    )
    assert Account.objects.filter(pk=ids["1200"]).exists()
    year_add = reverse("admin:erp_accounting_fiscalyear_add")
    assert (
        admin_client.post(
            year_add, {"name": "2026", "start_date": "2026-01-01", "end_date": "2026-12-31"}
        ).status_code
        == 302
    )
    overlap = admin_client.post(
        year_add, {"name": "X", "start_date": "2026-06-01", "end_date": "2027-05-31"}
    )
    assert overlap.status_code == 200
    assert FiscalYear.objects.count() == 1


def test_actions_post_reverse_close_and_retry(admin_client):
    today = timezone.localdate()
    year = _year(today.year)
    entry = _draft(day=date(today.year, 1, 1))
    unbalanced = services.journal_entry_create(
        fields={"date": today, "lines": [{"account_id": _ids()["1100"], "debit": Decimal("1")}]}
    )
    url = reverse("admin:erp_accounting_journalentry_changelist")
    admin_client.post(url, {"action": "post", "_selected_action": [entry.pk, unbalanced.pk]})
    entry.refresh_from_db()
    unbalanced.refresh_from_db()
    assert (entry.status, unbalanced.status) == ("posted", "draft")
    admin_client.post(url, {"action": "delete_drafts", "_selected_action": [unbalanced.pk]})
    assert not JournalEntry.objects.filter(pk=unbalanced.pk).exists()
    admin_client.post(url, {"action": "reverse", "_selected_action": [entry.pk]})
    assert JournalEntry.objects.get(reverses=entry).date == today
    Account.objects.filter(role="bank").update(role="")
    failed = services.event_post(
        source_type="payment",
        source_id=7,
        kind="payment",
        event={"payment_id": 7, "order_id": 1, "amount": "5.00", "date": today.isoformat()},
    )
    assert failed.status == "failed"
    Account.objects.filter(code="1100").update(role="bank")
    admin_client.post(
        reverse("admin:erp_accounting_autoposting_changelist"),
        {"action": "retry", "_selected_action": [failed.pk]},
    )
    assert AutoPosting.objects.get(pk=failed.pk).status == "posted"
    admin_client.post(
        reverse("admin:erp_accounting_fiscalyear_changelist"),
        {"action": "close", "_selected_action": [year.pk]},
    )
    assert FiscalYear.objects.get(pk=year.pk).status == "closed"
