"""/purchase-orders: drafts, the state machine, send (e-mail with the PDF), cancel, pdf."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from common.models import DoneMarker
from erp.purchasing import services
from erp.purchasing.models import PurchaseOrder, PurchaseOrderEmail
from tests.erp.purchasing.conftest import (
    BASE,
    make_order,
    make_price,
    make_supplier,
    product,
    sent_order,
)
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db


def create(client, supplier, lines, **extra):
    return client.post(
        f"{BASE}/purchase-orders",
        {"supplier_id": supplier.pk, "lines": lines, **extra},
        format="json",
    )


def test_a_draft_takes_the_suppliers_price_for_the_quantity(buyer_client):
    acme = make_supplier(lead_time_days=5)
    widget, gadget = product("Widget"), product("Gadget")
    make_price(acme, widget, "3.00", supplier_sku="AC-1")
    make_price(acme, widget, "2.50", min_quantity=10, supplier_sku="AC-10")
    make_price(acme, widget, "9.99", currency="USD")
    response = create(
        buyer_client,
        acme,
        [
            {"product_id": widget.pk, "quantity": 12},
            {"product_id": widget.pk, "quantity": 4},
            {"product_id": gadget.pk, "quantity": 2, "unit_cost": "1.255"},
        ],
        order_date="2025-03-01",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert [
        (ln["quantity"], ln["unit_cost"], ln["supplier_sku"], ln["total"]) for ln in body["lines"]
    ] == [
        (12, "2.5000", "AC-10", "30.00"),
        (4, "3.0000", "AC-1", "12.00"),
        (2, "1.2550", "", "2.51"),
    ]
    assert {k: body[k] for k in ("status", "total", "currency", "expected_date", "line_count")} == {
        "status": "draft",
        "total": "44.51",
        "currency": "EUR",
        "expected_date": "2025-03-06",
        "line_count": 3,
    }
    assert body["number"] == f"PO{body['id']:05d}"
    assert body["warehouse"] is None


def test_a_line_without_price_or_item_is_refused(buyer_client):
    acme = make_supplier()
    widget = product()
    body = error(
        create(buyer_client, acme, [{"product_id": widget.pk, "quantity": 1}]),
        400,
        "no_supplier_price",
    )
    assert list(body["data"]["params"]) == ["lines.0.unit_cost"]
    params = error(
        create(buyer_client, acme, [{"product_id": 999999, "quantity": 1, "unit_cost": 1}]), 400
    )["data"]["params"]
    assert list(params) == ["lines.0.product_id"]
    error(create(buyer_client, acme, [{"product_id": widget.pk, "quantity": 0}]), 400)
    error(create(buyer_client, acme, [["x"]]), 422, "invalid_shape")
    error(create(buyer_client, acme, {"product_id": widget.pk}), 422, "invalid_shape")
    inactive = make_supplier(name="Gone", is_active=False)
    error(
        create(buyer_client, inactive, [{"product_id": widget.pk, "quantity": 1, "unit_cost": 1}]),
        409,
        "supplier_inactive",
    )
    assert not PurchaseOrder.objects.exists()


def test_drafts_change_and_delete_but_sent_orders_do_not(buyer_client):
    acme = make_supplier()
    widget = product()
    order = make_order(acme, (widget, 2, "1.00"))
    url = f"{BASE}/purchase-orders/{order.pk}"
    patched = buyer_client.patch(
        url,
        {
            "lines": [{"product_id": widget.pk, "quantity": 5, "unit_cost": "2"}],
            "notes": "Ring first",
            "expected_date": "2030-01-02",
        },
        format="json",
    ).json()
    assert (patched["total"], patched["notes"], patched["expected_date"]) == (
        "10.00",
        "Ring first",
        "2030-01-02",
    )
    assert [ln["quantity"] for ln in patched["lines"]] == [5]
    services.purchase_order_send(order_id=order.pk, email=False)
    error(buyer_client.patch(url, {"notes": "x"}, format="json"), 409, "purchase_order_not_draft")
    error(buyer_client.put(url, {"notes": "x"}, format="json"), 409, "purchase_order_not_draft")
    error(buyer_client.delete(url), 409, "purchase_order_not_draft")
    assert PurchaseOrder.objects.get(pk=order.pk).notes == "Ring first"
    draft = make_order(acme, (widget, 1, "1.00"))
    assert buyer_client.delete(f"{BASE}/purchase-orders/{draft.pk}").status_code == 204
    error(buyer_client.get(f"{BASE}/purchase-orders/{draft.pk}"), 404, "purchase_order_not_found")


def test_send_emails_the_pdf_to_the_supplier(buyer_client, django_capture_on_commit_callbacks):
    acme = make_supplier(contact_name="Ada")
    widget = product()
    order = make_order(acme, (widget, 3, "4.50"))
    with django_capture_on_commit_callbacks(execute=True):
        response = buyer_client.post(
            f"{BASE}/purchase-orders/{order.pk}/send", {"message": "Urgent"}, format="json"
        )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "sent"
    assert body["sent_at"]
    assert [(e["recipient"], e["status"]) for e in body["emails"]] == [
        ("orders@acme.example", "queued")
    ]
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["orders@acme.example"]
    assert order.number in message.subject
    for text in ("Dear Ada", "Urgent", "13.50 EUR"):
        assert text in message.body
    [(filename, content, mimetype)] = message.attachments
    assert (filename, mimetype) == (f"{order.number}.pdf", "application/pdf")
    assert content.startswith(b"%PDF-")
    assert b"%%EOF" in content[-32:]
    assert PurchaseOrderEmail.objects.get().status == "sent"
    # the task again (a redelivery): nothing more is sent
    email_id = PurchaseOrderEmail.objects.get().pk
    assert services.purchase_order_email_deliver(email_id=email_id) is False
    assert len(mail.outbox) == 1
    assert DoneMarker.objects.filter(key=f"erp-po-email:{email_id}").exists()
    # a sent order may be sent again
    with django_capture_on_commit_callbacks(execute=True):
        again = buyer_client.post(f"{BASE}/purchase-orders/{order.pk}/send", {}, format="json")
    assert [e["status"] for e in again.json()["emails"]] == ["sent", "queued"]
    assert list(PurchaseOrderEmail.objects.values_list("status", flat=True)) == ["sent", "sent"]
    assert len(mail.outbox) == 2


def test_a_failed_delivery_is_recorded_and_retried(monkeypatch):
    acme = make_supplier()
    order = make_order(acme, (product(), 1, "1.00"))
    services.purchase_order_send(order_id=order.pk)  # eager: sent at commit... in tests, now
    row = PurchaseOrderEmail.objects.get()
    PurchaseOrderEmail.objects.filter(pk=row.pk).update(status="queued")
    DoneMarker.objects.filter(key=f"erp-po-email:{row.pk}").delete()

    def refuse(self, *args, **kwargs):
        raise OSError("SMTP down")

    monkeypatch.setattr("django.core.mail.EmailMessage.send", refuse)
    with pytest.raises(OSError, match="SMTP down"):
        services.purchase_order_email_deliver(email_id=row.pk)
    row.refresh_from_db()
    assert (row.status, row.error, row.attempts) == ("failed", "OSError: SMTP down", 1)
    assert not DoneMarker.objects.filter(key=f"erp-po-email:{row.pk}").exists()
    monkeypatch.undo()
    assert services.purchase_order_email_deliver(email_id=row.pk) is True
    row.refresh_from_db()
    assert (row.status, row.error) == ("sent", "")


def test_send_refusals(buyer_client):
    silent = make_supplier(name="Silent", email="")
    widget = product()
    order = make_order(silent, (widget, 1, "1.00"))
    url = f"{BASE}/purchase-orders/{order.pk}/send"
    error(buyer_client.post(url, {}, format="json"), 409, "supplier_has_no_email")
    assert PurchaseOrder.objects.get(pk=order.pk).status == "draft"
    marked = buyer_client.post(url, {"email": False}, format="json").json()
    assert (marked["status"], marked["emails"]) == ("sent", [])
    empty = make_order(make_supplier(name="Empty"))
    error(
        buyer_client.post(f"{BASE}/purchase-orders/{empty.pk}/send", {}, format="json"),
        409,
        "purchase_order_empty",
    )
    services.purchase_order_cancel(order_id=order.pk)
    error(buyer_client.post(url, {}, format="json"), 409, "purchase_order_not_sendable")
    error(buyer_client.post(url, {"email": "yes"}, format="json"), 400, "invalid_param")
    error(buyer_client.post(f"{BASE}/purchase-orders/999999/send", {}), 404)


def test_the_state_machine_of_cancel(buyer_client):
    acme = make_supplier()
    widget = product()
    draft = make_order(acme, (widget, 2, "1.00"))
    sent = sent_order(acme, (widget, 2, "1.00"))
    partly = sent_order(acme, (widget, 2, "1.00"))
    services.purchase_order_receive(
        order_id=partly.pk, lines=[{"line_id": partly.lines.get().pk, "quantity": 1}]
    )
    for order in (draft, sent):
        body = buyer_client.post(f"{BASE}/purchase-orders/{order.pk}/cancel").json()
        assert (body["status"], bool(body["cancelled_at"])) == ("cancelled", True)
    for order in (partly, draft):
        error(
            buyer_client.post(f"{BASE}/purchase-orders/{order.pk}/cancel"),
            409,
            "purchase_order_not_cancellable",
        )
    assert PurchaseOrder.objects.get(pk=partly.pk).status == "partially_received"
    error(
        buyer_client.post(f"{BASE}/purchase-orders/{draft.pk}/receive", {}, format="json"),
        409,
        "purchase_order_not_receivable",
    )


def test_the_pdf_route(buyer_client):
    acme = make_supplier(vat_number="DE136695976", address_1="Straße 1", city="Köln")
    lines = [(product(f"Item {i}", sku=f"SKU-{i}"), i + 1, "1.10") for i in range(70)]
    order = make_order(acme, *lines, notes="Deliver to the back door\nThank you")
    response = buyer_client.get(f"{BASE}/purchase-orders/{order.pk}/pdf")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == f'inline; filename="{order.number}.pdf"'
    assert response.content.startswith(b"%PDF-")
    pdf = PdfReader(io.BytesIO(response.content))
    text = "\n".join(page.extract_text() for page in pdf.pages)
    assert len(pdf.pages) >= 2  # 70 lines: the table goes on
    for shown in (order.number, "DE136695976", "Köln", "SKU-69", "1.10", "Total: 2733.50 EUR"):
        assert shown in text, shown
    assert "Deliver to the back door" in text
    error(buyer_client.get(f"{BASE}/purchase-orders/999999/pdf"), 404)


def test_list_filters_and_query_ceiling(buyer_client, django_assert_max_num_queries):
    acme, globex = make_supplier(name="Acme"), make_supplier(name="Globex")
    widget = product()
    old = make_order(acme, (widget, 1, "1"), order_date=timezone.localdate() - timedelta(days=40))
    sent = sent_order(globex, (widget, 1, "1"))
    make_order(acme, (widget, 1, "1"))
    url = f"{BASE}/purchase-orders"
    with django_assert_max_num_queries(12) as few:
        listing = buyer_client.get(url).json()
    baseline = len(few.captured_queries)
    assert listing["total"] == 3
    assert listing["purchase_orders"][-1]["number"] == old.number
    sent_only = buyer_client.get(url, {"status": "sent"}).json()["purchase_orders"]
    assert [o["number"] for o in sent_only] == [sent.number]
    assert buyer_client.get(url, {"supplier_id": acme.pk}).json()["total"] == 2
    assert buyer_client.get(url, {"status": "draft,sent"}).json()["total"] == 3
    since = (timezone.localdate() - timedelta(days=1)).isoformat()
    assert buyer_client.get(url, {"date_from": since}).json()["total"] == 2
    assert buyer_client.get(url, {"search": old.number}).json()["total"] == 1
    error(buyer_client.get(url, {"status": "lost"}), 400, "invalid_param")
    for _ in range(15):
        make_order(acme, (widget, 1, "1"), (product(), 2, "2"))
    with django_assert_max_num_queries(baseline):
        assert buyer_client.get(url).json()["total"] == 18


def test_unsafe_methods_from_a_browser_need_the_nonce(buyer, erp_on):
    acme = make_supplier()
    order = make_order(acme, (product(), 1, "1"))
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(buyer)
    nonce = browser.get("/rest/ec/v1/auth/nonce").json()["nonce"]
    url = f"{BASE}/purchase-orders/{order.pk}/cancel"
    error(browser.post(url), 401, "not_logged_in")
    error(browser.post(url, HTTP_X_PLATFORM_NONCE="0" * 32), 403, "invalid_nonce")
    assert PurchaseOrder.objects.get(pk=order.pk).status == "draft"
    assert browser.post(url, HTTP_X_PLATFORM_NONCE=nonce).json()["status"] == "cancelled"
    created = browser.post(
        f"{BASE}/suppliers",
        '{"name": "Via browser"}',
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce,
    )
    assert created.status_code == 201
