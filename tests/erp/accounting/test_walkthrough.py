"""The accounting walk-through of docs/api/erp.md on the demo data, through the HTTP API alone: an
order's invoice is issued and its payment recorded; both appear in the trial balance (the
receivable settled, the bank, the sales and the VAT), and the books balance."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import TestCase

from accounts.models import User
from erp.invoicing.models import Invoice
from store.orders.models import Order
from tests.fixtures.store import API, basic_auth

pytestmark = pytest.mark.django_db


@pytest.mark.sqlite_only  # a walk-through of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_an_orders_invoice_and_payment_appear_in_the_trial_balance(seeded_demo, client):
    admin = User.objects.get(email="admin@example.com")
    auth = {"HTTP_AUTHORIZATION": basic_auth(admin)}

    def call(method, path, body=None, status=200):
        with TestCase.captureOnCommitCallbacks(execute=True):
            response = getattr(client, method)(
                f"{API}{path}", body, content_type="application/json", **auth
            )
        assert response.status_code == status, (path, response.content)
        return response.json()

    before = call("get", "/reports/trial-balance")
    assert before["balanced"] is True
    opening = {row["code"]: row for row in before["accounts"]}
    # the demo's entries (capital less rent) and the demo orders' payments, posted by seed_demo
    assert Decimal(opening["1100"]["closing_debit"]) > Decimal("9200.00")

    invoiced = set(Invoice.objects.exclude(order=None).values_list("order_id", flat=True))
    order = (
        Order.objects.filter(status="pending", amount_paid=0)
        .exclude(pk__in=invoiced)
        .order_by("pk")
    )[0]
    invoice = call("post", f"/invoices/from-order/{order.pk}", status=201)
    issued = call("post", f"/invoices/{invoice['id']}/issue")
    gross, vat = Decimal(issued["gross_total"]), Decimal(issued["vat_total"])
    assert (issued["full_number"], issued["gross_total"]) == ("R-2", "28.50")  # as docs/api/erp.md
    receivable = call("get", "/reports/accounts-receivable")
    items = [i for p in receivable["partners"] for i in p["items"]]
    assert {i["reference"]: i["amount"] for i in items}[f"order:{order.pk}"] == str(gross)

    call("post", f"/orders/{order.pk}/payments", {"amount": str(gross), "method": "cod"}, 201)
    entries = call("get", "/journal-entries", {"reference": f"order:{order.pk}"})
    memos = sorted(e["memo"].split()[0] for e in entries["journal_entries"])
    assert memos == ["Invoice", "Payment"], memos
    after = call("get", "/reports/trial-balance")
    assert after["balanced"] is True
    rows = {row["code"]: row for row in after["accounts"]}

    def net(row):  # debit positive
        return Decimal(row["closing_debit"]) - Decimal(row["closing_credit"])

    def was(code):
        return net(opening[code]) if code in opening else Decimal(0)

    assert net(rows["1100"]) - was("1100") == gross  # the bank received it
    assert net(rows["1200"]) == was("1200")  # the receivable is settled
    assert was("4100") - net(rows["4100"]) == gross - vat  # sales
    assert was("2200") - net(rows["2200"]) == vat  # VAT payable
    receivable = call("get", "/reports/accounts-receivable")
    refs = [i["reference"] for p in receivable["partners"] for i in p["items"]]
    assert f"order:{order.pk}" not in refs
