"""The admin of the ERP kernel: jobs (progress, errors, cancel through the service), the
registers (read only) and the portal's settings (through the service)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from erp.core import services
from erp.core.models import ErpJob, ErpPortalSettings

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(admin_user):
    client = Client()
    client.force_login(admin_user)
    return client


def test_jobs_show_progress_and_errors_and_are_cancelled_through_the_service(browser):
    job = services.migrate_data_start()
    ErpJob.objects.filter(pk=job.pk).update(
        errors=[{"phase": "orders", "id": 7, "message": "The order has no number."}],
        error_count=1,
    )
    listing = browser.get(reverse("admin:erp_core_erpjob_changelist"))
    assert listing.status_code == 200
    assert b"0 %" in listing.content
    page = browser.get(reverse("admin:erp_core_erpjob_change", args=[job.pk]))
    assert b"The order has no number." in page.content
    response = browser.post(
        reverse("admin:erp_core_erpjob_changelist"),
        {"action": "cancel", "_selected_action": [job.pk]},
        follow=True,
    )
    assert b"1 job(s) cancelled." in response.content
    assert ErpJob.objects.get().state == "cancelled"
    response = browser.post(
        reverse("admin:erp_core_erpjob_changelist"),
        {"action": "cancel", "_selected_action": [job.pk]},
        follow=True,
    )
    assert b"No job of this kind is running." in response.content
    for name in ("erpimportedcustomer", "erpimportedorder", "erpopeningstock"):
        assert browser.get(reverse(f"admin:erp_core_{name}_changelist")).status_code == 200


def test_the_portal_settings_are_changed_through_the_service(browser, admin_user):
    add = reverse("admin:erp_core_erpportalsettings_add")
    refused = browser.post(add, {"enabled": "on", "welcome_text": "", "brand_colour": "#112233"})
    assert refused.status_code == 200
    assert b"An enabled portal shows at least one document kind." in refused.content
    assert not ErpPortalSettings.objects.exists()
    response = browser.post(
        add,
        {
            "enabled": "on",
            "customer_documents": ["invoices"],
            "welcome_text": "Hello",
            "brand_colour": "#112233",
        },
    )
    assert response.status_code == 302, response.content
    row = ErpPortalSettings.objects.get()
    assert (row.customer_documents, row.updated_by) == (["invoices"], admin_user)
    change = reverse("admin:erp_core_erpportalsettings_change", args=[1])
    bad = browser.post(
        change,
        {"enabled": "on", "customer_documents": ["invoices"], "brand_colour": "red"},
    )
    assert b"#RRGGBB" in bad.content
    assert browser.get(add).status_code == 403  # one row only
