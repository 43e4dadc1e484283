"""Refunds on an order whose invoice is issued get a credit note each: by amount, its VAT
split over the invoice's VAT categories, numbered in the credit-note series, once per refund
payment, never crediting more than the invoice; refunds before the invoice are credited when
it is issued; a cancellation then credits only what is left."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.urls import reverse

from common.errors import ServiceError
from erp.invoicing import selectors, services
from erp.invoicing.models import Invoice, Transmission
from store.orders import services as order_services
from store.payments import services as payment_services
from tests.erp.invoicing.helpers import INVOICES, configure, on_commit
from tests.fixtures.store import API, error
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db


@pytest.fixture
def series(erp_on):
    return configure()


def an_order():
    """177.00: 2 lamps at 50.00 + 24% VAT, a book at 50.00 + 6% VAT; cash on delivery."""
    return make_order(
        line(stocked("Lamp", price="50.00"), 2, tax="24.00"),
        line(stocked("Book", price="50.00"), 1, tax="3.00"),
        status="processing",
        billing_address={"first_name": "Eleni", "last_name": "P", "country": "GR"},
        payment_method="cod",
    )


def invoice_of(api, order, *, issue: bool = True) -> dict:
    with on_commit():
        invoice = api.post(f"{INVOICES}/from-order/{order.pk}").json()
        if issue:
            response = api.post(f"{INVOICES}/{invoice['id']}/issue")
            assert response.status_code == 200, response.content
            invoice = response.json()
    return invoice


def pay(admin, order, amount: str) -> None:
    with on_commit():
        response = admin.post(
            f"{API}/orders/{order.pk}/payments", {"amount": amount, "method": "cod"}, format="json"
        )
    assert response.status_code == 201, response.content


def refund(admin, order, amount: str | None = None) -> int:
    """Refund through the store's route; answers the refund payment's id."""
    body = {"reason": "Scratched"} if amount is None else {"amount": amount, "reason": "Scratched"}
    with on_commit():
        response = admin.post(f"{API}/payment/refund/{order.pk}", body, format="json")
    assert response.status_code == 201, response.content
    (made,) = response.json()["refunds"]
    return made["payment_id"]


def get(api, invoice_id: int) -> dict:
    return api.get(f"{INVOICES}/{invoice_id}").json()


def notes_of(api, invoice_id: int) -> list[dict]:
    """The invoice's credit notes, oldest first."""
    return [get(api, note_id) for note_id in sorted(get(api, invoice_id)["credit_note_ids"])]


def amounts(note: dict) -> list[tuple]:
    return [
        (row["vat_category"], row["net_amount"], row["vat_amount"], row["gross_amount"])
        for row in note["lines"]
    ]


def test_a_partial_refund_issues_a_credit_note_split_over_the_vat_rates(
    api, series, admin_client_api
):
    order = an_order()
    invoice = invoice_of(api, order)
    assert invoice["gross_total"] == "177.00"
    pay(admin_client_api, order, "177.00")
    payment_id = refund(admin_client_api, order, "10.00")

    (note,) = notes_of(api, invoice["id"])
    assert (note["document_type"], note["status"], note["full_number"]) == (
        "11.4",
        "issued",
        "CNR-1",
    )
    assert (note["corrects_id"], note["refund_payment_id"]) == (invoice["id"], payment_id)
    assert (note["net_total"], note["vat_total"], note["gross_total"]) == ("8.47", "1.53", "10.00")
    # 10.00 shared as the invoice's gross is (124.00 at 24%, 53.00 at 6%): 7.01 and 2.99.
    assert amounts(note) == [(1, "5.65", "1.36", "7.01"), (3, "2.82", "0.17", "2.99")]
    assert f"payment {payment_id}" in note["notes"]
    again = get(api, invoice["id"])
    assert (again["status"], again["credited_total"]) == ("issued", "10.00")
    listed = api.get(f"{INVOICES}?document_type=11.4").json()["invoices"]
    assert [row["refund_payment_id"] for row in listed] == [payment_id]


def test_one_credit_note_per_refund_payment(api, series, admin_client_api):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    payment_id = refund(admin_client_api, order, "10.00")
    # The refund edited (announced again), and the event delivered twice: still one note.
    with on_commit():
        response = admin_client_api.patch(
            f"{API}/payments/{payment_id}", {"note": "Scratched lamp"}, format="json"
        )
    assert response.status_code == 200, response.content
    event = {"payment_id": payment_id, "order_id": order.pk, "kind": "refund", "deleted": False}
    note = services.refund_recorded(event)
    assert note.refund_payment_id == payment_id
    assert get(api, invoice["id"])["credit_note_ids"] == [note.pk]
    assert Invoice.objects.filter(corrects_id=invoice["id"]).count() == 1


def test_refunds_in_full_credit_the_invoice_exactly_and_cancel_it(api, series, admin_client_api):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "10.00")
    refund(admin_client_api, order)  # the rest: 167.00

    first, rest = notes_of(api, invoice["id"])
    assert (rest["full_number"], rest["gross_total"]) == ("CNR-2", "167.00")
    # The last note takes exactly what is left of each rate: the notes give back the invoice.
    assert amounts(rest) == [(1, "94.35", "22.64", "116.99"), (3, "47.18", "2.83", "50.01")]
    for total in ("net_total", "vat_total", "gross_total"):
        assert Decimal(first[total]) + Decimal(rest[total]) == Decimal(invoice[total])
    done = get(api, invoice["id"])
    assert (done["status"], done["credited_total"]) == ("cancelled", "177.00")
    assert done["cancelled_at"]
    error(api.post(f"{INVOICES}/{invoice['id']}/cancel"), 409, "invoice_cancelled")


def test_a_cancellation_after_a_refund_credits_only_what_is_left(api, series, admin_client_api):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "10.00")
    response = api.post(f"{INVOICES}/{invoice['id']}/cancel", {"reason": "Void"}, format="json")
    assert response.status_code == 201, response.content
    rest = response.json()
    assert (rest["gross_total"], rest["refund_payment_id"]) == ("167.00", None)
    assert amounts(rest) == [(1, "94.35", "22.64", "116.99"), (3, "47.18", "2.83", "50.01")]
    assert rest["notes"] == f"Cancels {invoice['full_number']}. Void"
    assert get(api, invoice["id"])["credited_total"] == "177.00"
    # A refund on an invoice credited in full makes no note.
    refund(admin_client_api, order)
    assert len(get(api, invoice["id"])["credit_note_ids"]) == 2


def test_refunds_before_the_invoice_is_issued_are_credited_when_it_is(
    api, series, admin_client_api
):
    order = an_order()
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "20.00")  # no invoice yet
    draft = invoice_of(api, order, issue=False)
    payment_id = refund(admin_client_api, order, "7.00")  # a draft: nothing credited yet
    assert Invoice.objects.count() == 1
    with on_commit():
        issued = api.post(f"{INVOICES}/{draft['id']}/issue").json()
    # The invoice is for the order's lines; the money given back before is credited at once.
    assert (issued["full_number"], issued["gross_total"]) == ("R-1", "177.00")
    notes = notes_of(api, draft["id"])
    assert [(n["full_number"], n["gross_total"]) for n in notes] == [
        ("CNR-1", "20.00"),
        ("CNR-2", "7.00"),
    ]
    assert notes[1]["refund_payment_id"] == payment_id


def test_a_refund_of_an_overpayment_is_not_credited(api, series, admin_client_api):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    pay(admin_client_api, order, "10.00")  # paid twice by mistake
    refund(admin_client_api, order, "10.00")
    assert get(api, invoice["id"])["credit_note_ids"] == []
    refund(admin_client_api, order, "20.00")
    (note,) = notes_of(api, invoice["id"])
    assert note["gross_total"] == "20.00"


def test_a_refund_on_an_order_without_an_invoice_makes_no_note(api, series, admin_client_api):
    order = an_order()
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "10.00")
    assert not Invoice.objects.exists()


def test_a_deleted_refund_keeps_its_credit_note(api, series, admin_client_api):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    payment_id = refund(admin_client_api, order, "10.00")
    with on_commit():
        assert admin_client_api.delete(f"{API}/payments/{payment_id}").status_code == 204
    (note,) = notes_of(api, invoice["id"])
    assert (note["status"], note["refund_payment_id"]) == ("issued", payment_id)


def test_nothing_is_credited_while_the_erp_is_off(db):
    configure()
    order = an_order()
    invoice, _made = services.invoice_from_order(order_id=order.pk)
    services.invoice_issue(invoice_id=invoice.pk)
    with on_commit():
        order_services.payment_create(order_id=order.pk, fields={"amount": Decimal("177.00")})
        payment_services.refund_create(order_id=order.pk, amount=Decimal("10.00"))
    assert not Invoice.objects.filter(corrects=invoice).exists()


def test_a_refused_credit_note_is_recorded_and_credited_later_from_the_admin(
    api, series, admin_client_api, admin_client
):
    order = an_order()
    invoice = invoice_of(api, order)
    pay(admin_client_api, order, "177.00")
    services.settings_update(fields={"issuer_vat_number": ""})
    payment_id = refund(admin_client_api, order, "10.00")  # the refund itself is recorded
    body = get(api, invoice["id"])
    assert body["credit_note_ids"] == []
    assert f"refund {payment_id}" in body["auto_issue_error"]
    assert "issuer's VAT number" in body["auto_issue_error"]

    services.settings_update(fields={"issuer_vat_number": "EL094259216"})
    changelist = reverse("admin:erp_invoicing_invoice_changelist")
    with on_commit():
        admin_client.post(
            changelist, {"action": "credit_refunds", "_selected_action": [invoice["id"]]}
        )
    body = get(api, invoice["id"])
    assert (body["credited_total"], body["auto_issue_error"]) == ("10.00", "")
    (note,) = notes_of(api, invoice["id"])
    assert note["refund_payment_id"] == payment_id


def test_a_drafts_refunds_wait_for_its_issue(api, series):
    draft = invoice_of(api, an_order(), issue=False)
    with pytest.raises(ServiceError) as refused:
        services.invoice_credit_refunds(invoice_id=draft["id"])
    assert (refused.value.code, refused.value.status_code) == ("invoice_is_draft", 409)


def test_a_refunds_credit_note_goes_to_the_authority_with_the_invoices_mark(
    api, series, admin_client_api
):
    order = an_order()
    invoice = invoice_of(api, order)
    with on_commit():
        assert api.post(f"{INVOICES}/{invoice['id']}/transmit").status_code == 202
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "10.00")
    (note,) = notes_of(api, invoice["id"])
    assert note["transmission"]["status"] == "sent", note["transmission"]
    document = selectors.document_of(selectors.invoice_get(note["id"]))
    assert document.correlated_marks == (get(api, invoice["id"])["transmission"]["mark"],)


def test_with_auto_transmit_an_invoice_and_its_earlier_refunds_notes_are_sent_in_order(
    api, series, admin_client_api
):
    services.settings_update(fields={"auto_transmit": True})
    order = an_order()
    pay(admin_client_api, order, "177.00")
    refund(admin_client_api, order, "10.00")
    invoice = invoice_of(api, order)
    (note,) = notes_of(api, invoice["id"])
    statuses = Transmission.objects.filter(invoice_id__in=[invoice["id"], note["id"]])
    assert set(statuses.values_list("status", flat=True)) == {"sent"}
