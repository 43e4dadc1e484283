"""Real concurrent transactions (PostgreSQL): issuing locks the series row, so numbers are
unique and gapless whatever the interleaving; the same draft issued twice at once is issued
once; one order gets one invoice; a refund delivered twice at once makes one credit note, and
never more than the invoice is credited."""

from __future__ import annotations

from decimal import Decimal

import pytest

from common.errors import ServiceError
from erp.invoicing import services
from erp.invoicing.models import Invoice, InvoiceSeries
from store.orders import services as order_services
from tests.concurrency import race
from tests.erp.invoicing.helpers import configure, draft_body
from tests.store.orders.factories import line, make_order, stocked

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def draft(series_id: int) -> Invoice:
    body = draft_body(series_id=series_id)
    body.pop("billing_address")
    return services.invoice_create(fields=body)


def test_simultaneous_issues_take_gapless_unique_numbers():
    sales, receipts = configure()
    drafts = [draft(sales.pk) for _ in range(6)] + [draft(receipts.pk) for _ in range(2)]
    results = race(*[lambda pk=d.pk: services.invoice_issue(invoice_id=pk) for d in drafts])
    assert all(isinstance(r, Invoice) for r in results), results
    sales_numbers = sorted(Invoice.objects.filter(series=sales).values_list("number", flat=True))
    assert sales_numbers == [1, 2, 3, 4, 5, 6]
    assert sorted(Invoice.objects.filter(series=receipts).values_list("number", flat=True)) == [
        1,
        2,
    ]
    assert InvoiceSeries.objects.get(pk=sales.pk).next_number == 7


def test_the_same_draft_issued_twice_at_once_is_issued_once():
    sales, _ = configure()
    invoice = draft(sales.pk)
    results = race(*[lambda: services.invoice_issue(invoice_id=invoice.pk) for _ in range(3)])
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert [r.code for r in refused] == ["invoice_not_draft"] * 2
    assert Invoice.objects.get(pk=invoice.pk).number == 1
    assert InvoiceSeries.objects.get(pk=sales.pk).next_number == 2


def test_simultaneous_cancels_make_one_credit_note():
    sales, _ = configure()
    invoice = services.invoice_issue(invoice_id=draft(sales.pk).pk)
    results = race(*[lambda: services.invoice_cancel(invoice_id=invoice.pk) for _ in range(3)])
    assert sum(isinstance(r, Invoice) for r in results) == 1
    assert Invoice.objects.filter(corrects=invoice).count() == 1


def test_one_order_one_invoice_under_simultaneous_calls():
    configure()
    order = make_order(line(stocked()), status="processing")
    results = race(*[lambda: services.invoice_from_order(order_id=order.pk) for _ in range(4)])
    assert all(isinstance(r, tuple) for r in results), results
    assert sum(made for _invoice, made in results) == 1
    assert len({invoice.pk for invoice, _made in results}) == 1
    assert Invoice.objects.filter(order=order).count() == 1


def refunded_invoice() -> tuple[Invoice, int]:
    """An order's issued invoice (24.80), paid, and a refund of 10.00 recorded (the ERP off:
    nothing credited it yet)."""
    configure()
    order = make_order(line(stocked(price="10.00"), 2, tax="4.80"), status="processing")
    invoice, _made = services.invoice_from_order(order_id=order.pk)
    services.invoice_issue(invoice_id=invoice.pk)
    order_services.payment_create(order_id=order.pk, fields={"amount": Decimal("24.80")})
    refund = order_services.payment_create(
        order_id=order.pk, fields={"amount": Decimal("10.00"), "kind": "refund"}
    )
    return invoice, refund.pk


def test_a_refund_delivered_twice_at_once_makes_one_credit_note():
    invoice, payment_id = refunded_invoice()
    event = {"payment_id": payment_id, "order_id": invoice.order_id, "kind": "refund"}
    results = race(*[lambda: services.refund_recorded(event) for _ in range(3)])
    assert {r.pk for r in results} == {Invoice.objects.get(refund_payment_id=payment_id).pk}
    assert Invoice.objects.filter(corrects=invoice).count() == 1


def test_a_refund_and_a_cancellation_at_once_never_credit_more_than_the_invoice():
    invoice, payment_id = refunded_invoice()
    event = {"payment_id": payment_id, "order_id": invoice.order_id, "kind": "refund"}
    race(
        lambda: services.refund_recorded(event),
        lambda: services.invoice_cancel(invoice_id=invoice.pk),
    )
    notes = Invoice.objects.filter(corrects=invoice)
    assert sum(note.gross_total for note in notes) == Decimal("24.80")
    assert Invoice.objects.get(pk=invoice.pk).status == "cancelled"
