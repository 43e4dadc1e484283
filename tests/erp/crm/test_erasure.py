"""A store customer deleted or anonymised (DELETE /customers/{id}): after the commit, the CRM
erases its contact's personal data and its leads' copies; the business history stays."""

from __future__ import annotations

import pytest

from erp.crm import services
from erp.crm.models import Activity, Contact, Lead
from tests.erp.crm.conftest import (
    BASE,
    make_activity,
    make_contact,
    make_customer,
    make_lead,
    paid_order,
)

pytestmark = pytest.mark.django_db


def _imported(email: str):
    customer = make_customer(email, first_name="Ada", phone="+44 20 7946 0958", company="AE")
    services.contacts_import_customers()
    contact = Contact.objects.get(customer=customer)
    services.contact_update(contact_id=contact.pk, fields={"notes": "Likes tea", "city": "Bath"})
    lead = make_lead(contact_id=contact.pk, contact_name="Ada", email=email, phone="+44 1 234 567")
    make_activity(lead_id=lead.pk, contact_id=contact.pk)
    return customer, contact, lead


@pytest.mark.parametrize("with_orders", [False, True])
def test_an_erased_customer_is_erased_from_the_crm(
    admin_client_api, erp_on, django_capture_on_commit_callbacks, with_orders
):
    customer, contact, lead = _imported("ada@example.com")
    other = make_contact(name="Grace", email="grace@example.com")
    if with_orders:
        paid_order(customer, "10.00")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = admin_client_api.delete(f"{BASE}/customers/{customer.pk}")
    assert response.status_code in (200, 204), response.content
    assert len(callbacks) >= 1
    contact.refresh_from_db()
    assert (contact.name, contact.email, contact.phone, contact.company) == (
        "Erased customer",
        "",
        "",
        "",
    )
    assert (contact.notes, contact.city, contact.customer_id) == ("", "", None)
    lead.refresh_from_db()
    assert (lead.contact_name, lead.email, lead.phone, lead.title) == ("", "", "", "Big deal")
    assert Activity.objects.filter(lead=lead).count() == 1
    other.refresh_from_db()
    assert (other.name, other.email) == ("Grace", "grace@example.com")
    assert services.contacts_import_customers()["created"] == 0
    assert Lead.objects.count() == 1


def test_a_rolled_back_erasure_erases_nothing(django_capture_on_commit_callbacks):
    customer, contact, _lead = _imported("ada@example.com")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.customer_erasure_requested(customer_id=customer.pk)
    assert len(callbacks) == 1  # waits for the commit
    contact.refresh_from_db()
    assert contact.email == "ada@example.com"
    callbacks[0]()
    callbacks[0]()  # a second run changes nothing more
    contact.refresh_from_db()
    assert (contact.name, contact.email) == ("Erased customer", "")
