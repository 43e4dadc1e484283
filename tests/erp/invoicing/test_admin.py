"""The invoicing admin: pages render, actions go through the services, credentials masked."""

from __future__ import annotations

import pytest
from django.urls import reverse

from erp.invoicing import services
from erp.invoicing.models import Invoice, InvoiceSeries, InvoicingSettings
from tests.erp.invoicing.helpers import configure, create, on_commit

pytestmark = pytest.mark.django_db


def test_pages_render_and_actions_use_the_services(admin_client, api):
    configure()
    services.settings_update(
        fields={"mydata_user_id": "emporion-user", "mydata_subscription_key": "secret-key-12345"}
    )
    draft = create(api)
    for model in (Invoice, InvoiceSeries, InvoicingSettings):
        meta = model._meta
        assert (
            admin_client.get(
                reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
            ).status_code
            == 200
        )
    page = admin_client.get(reverse("admin:erp_invoicing_invoicingsettings_change", args=[1]))
    assert page.status_code == 200
    assert b"secret-key-12345" not in page.content
    assert b"****2345" in page.content
    assert (
        admin_client.get(
            reverse("admin:erp_invoicing_invoice_change", args=[draft["id"]])
        ).status_code
        == 200
    )

    changelist = reverse("admin:erp_invoicing_invoice_changelist")
    admin_client.post(changelist, {"action": "issue", "_selected_action": [draft["id"]]})
    assert Invoice.objects.get(pk=draft["id"]).full_number == "A-1"
    admin_client.post(changelist, {"action": "issue", "_selected_action": [draft["id"]]})  # refused
    with on_commit():
        admin_client.post(changelist, {"action": "transmit", "_selected_action": [draft["id"]]})
    assert Invoice.objects.get(pk=draft["id"]).transmission.status == "sent"
    admin_client.post(
        changelist, {"action": "cancel_by_credit_note", "_selected_action": [draft["id"]]}
    )
    assert Invoice.objects.get(pk=draft["id"]).status == "cancelled"


def test_series_admin_keeps_the_rules(admin_client, api):
    sales, _ = configure()
    create(api)
    services.invoice_issue(invoice_id=Invoice.objects.get().pk)
    url = reverse("admin:erp_invoicing_invoiceseries_change", args=[sales.pk])
    response = admin_client.post(
        url,
        {
            "code": "Z",
            "name": "",
            "document_type": "1.1",
            "prefix": "A-",
            "next_number": 2,
            "active": "on",
        },
    )
    assert response.status_code == 200  # the form shows the refusal
    assert InvoiceSeries.objects.get(pk=sales.pk).code == "A"
    add = reverse("admin:erp_invoicing_invoiceseries_add")
    response = admin_client.post(
        add,
        {
            "code": "N",
            "name": "New",
            "document_type": "2.1",
            "prefix": "N-",
            "next_number": 1,
            "active": "on",
        },
    )
    assert response.status_code == 302
    assert InvoiceSeries.objects.filter(code="N").exists()
