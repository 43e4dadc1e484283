"""The purchasing admin: pages render; suppliers and prices are written through the services;
orders are sent and cancelled by actions; goods-received notes are read-only."""

from __future__ import annotations

import pytest
from django.urls import reverse

from erp.purchasing import services
from erp.purchasing.models import PurchaseOrder, Supplier, SupplierPrice
from tests.erp.purchasing.conftest import make_order, make_price, make_supplier, product

pytestmark = pytest.mark.django_db


def test_every_page_renders(admin_client):
    acme = make_supplier()
    widget = product()
    price = make_price(acme, widget)
    order = make_order(acme, (widget, 2, "1.00"))
    services.purchase_order_send(order_id=order.pk, email=False)
    note = services.purchase_order_receive(order_id=order.pk)
    for name, obj in (
        ("supplier", acme),
        ("supplierprice", price),
        ("purchaseorder", order),
        ("goodsreceivednote", note),
    ):
        assert (
            admin_client.get(reverse(f"admin:erp_purchasing_{name}_changelist")).status_code == 200
        )
        change = admin_client.get(reverse(f"admin:erp_purchasing_{name}_change", args=[obj.pk]))
        assert change.status_code == 200, name
    for name in ("purchaseorder", "goodsreceivednote"):
        assert admin_client.get(reverse(f"admin:erp_purchasing_{name}_add")).status_code == 403


def test_suppliers_and_prices_go_through_the_services(admin_client):
    add = reverse("admin:erp_purchasing_supplier_add")
    form = {"name": "Acme", "code": "", "currency": "EUR", "payment_terms_days": 30}
    form |= {"lead_time_days": 7, "is_active": "on", "vat_number": "DE136695977"}
    response = admin_client.post(add, form)
    assert response.status_code == 200  # the form again, with the VAT number's error
    assert "vat_number" in response.context["adminform"].form.errors
    assert not Supplier.objects.exists()
    form["vat_number"] = "de 136 695 976"
    assert admin_client.post(add, form).status_code == 302
    acme = Supplier.objects.get()
    assert (acme.code, acme.vat_number) == ("acme", "DE136695976")
    widget = product()
    price_form = {"supplier": acme.pk, "product": widget.pk, "unit_price": "2.5"}
    price_form |= {"currency": "EUR", "min_quantity": 1}
    assert (
        admin_client.post(reverse("admin:erp_purchasing_supplierprice_add"), price_form).status_code
        == 302
    )
    again = admin_client.post(reverse("admin:erp_purchasing_supplierprice_add"), price_form)
    assert again.status_code == 200
    assert SupplierPrice.objects.count() == 1
    make_order(acme, (widget, 1, "1.00"))
    delete = reverse("admin:erp_purchasing_supplier_delete", args=[acme.pk])
    admin_client.post(delete, {"post": "yes"}, follow=True)
    assert Supplier.objects.filter(pk=acme.pk).exists()  # refused: it has an order


def test_order_actions_call_the_services(
    admin_client, mailoutbox, django_capture_on_commit_callbacks
):
    acme = make_supplier()
    draft = make_order(acme, (product(), 1, "1.00"))
    other = make_order(acme, (product(), 1, "1.00"))
    changelist = reverse("admin:erp_purchasing_purchaseorder_changelist")
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(changelist, {"action": "send_by_email", "_selected_action": [draft.pk]})
    assert PurchaseOrder.objects.get(pk=draft.pk).status == "sent"
    assert [m.attachments[0][0] for m in mailoutbox] == [f"{draft.number}.pdf"]
    admin_client.post(changelist, {"action": "cancel", "_selected_action": [draft.pk, other.pk]})
    assert set(PurchaseOrder.objects.values_list("status", flat=True)) == {"cancelled"}
