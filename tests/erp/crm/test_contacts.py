"""/contacts, /contacts/{id}, /contacts/import-customers."""

from __future__ import annotations

import pytest
from django.db import IntegrityError

from erp.crm import services
from erp.crm.models import Activity, Contact
from store.customers.models import Customer
from tests.accounts.factories import UserFactory
from tests.erp.crm.conftest import (
    BASE,
    make_activity,
    make_contact,
    make_customer,
    make_lead,
)
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db

ADA = {
    "name": "Ada Lovelace",
    "email": "Ada@Example.com",
    "phone": "+44 20  7946 0958",
    "company": "Analytical Engines Ltd",
    "job_title": "Mathematician",
    "city": "London",
    "country": "gb",
}


def test_create_read_update_and_delete_a_contact(seller_client, seller):
    response = seller_client.post(f"{BASE}/contacts", ADA, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("email", "phone", "country", "lead_count")} == {
        "email": "ada@example.com",
        "phone": "+44 20 7946 0958",
        "country": "GB",
        "lead_count": 0,
    }
    assert body["owner"]["id"] == seller.pk
    assert body["customer"] is None
    url = f"{BASE}/contacts/{body['id']}"
    assert seller_client.get(url).json() == body
    patched = seller_client.patch(url, {"city": "Paris", "owner_id": None}, format="json").json()
    assert (patched["city"], patched["owner"], patched["name"]) == ("Paris", None, "Ada Lovelace")
    assert seller_client.put(url, {"notes": "VIP"}, format="json").json()["notes"] == "VIP"
    assert seller_client.delete(url).status_code == 204
    assert not Contact.objects.exists()
    error(seller_client.get(url), 404, "contact_not_found")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("email", "not-an-address"),
        ("phone", "call me"),
        ("phone", "12345"),
        ("phone", "+1234567890123456"),
        ("country", "XX"),
        ("name", ""),
        ("owner_id", 99999),
        ("customer_id", 99999),
        ("website", "nope"),
    ],
)
def test_invalid_fields_are_refused_and_nothing_is_written(seller_client, field, value):
    body = error(
        seller_client.post(f"{BASE}/contacts", {**ADA, field: value}, format="json"),
        400,
        "invalid_param",
    )
    assert field in body["data"]["params"]
    assert not Contact.objects.exists()


def test_a_customer_links_to_one_contact_only(seller_client):
    customer = make_customer()
    make_contact(customer_id=customer.pk)
    body = error(
        seller_client.post(
            f"{BASE}/contacts", {"name": "X", "customer_id": customer.pk}, format="json"
        ),
        400,
        "invalid_param",
    )
    assert "customer_id" in body["data"]["params"]
    assert Contact.objects.count() == 1


def test_search_filters_ordering_and_pages(seller_client, django_assert_max_num_queries):
    owner = UserFactory()
    make_contact(name="Ada Lovelace", email="ada@example.com", company="Engines", country="GB")
    make_contact(name="Grace Hopper", phone="+1 555 010 9999", company="Navy", owner_id=owner.pk)
    make_contact(name="Alan Turing", company="Bletchley", customer_id=make_customer().pk)
    for index in range(5):
        make_contact(name=f"Zed {index}", company="Engines")

    def names(**params):
        body = seller_client.get(f"{BASE}/contacts", params).json()
        return [c["name"] for c in body["contacts"]]

    assert names(search="ada") == ["Ada Lovelace"]
    assert names(search="555 010") == ["Grace Hopper"]
    assert names(search="5550109999") == ["Grace Hopper"]
    assert names(search="+15550109") == ["Grace Hopper"]
    assert names(search="bletch") == ["Alan Turing"]
    assert names(search="example.com") == ["Ada Lovelace"]
    assert names(country="gb") == ["Ada Lovelace"]
    assert names(owner_id=owner.pk) == ["Grace Hopper"]
    assert names(is_customer="true") == ["Alan Turing"]
    assert len(names(is_customer="false")) == 7
    assert names(company="navy") == ["Grace Hopper"]
    assert names(ordering="-name", per_page=2) == ["Zed 4", "Zed 3"]
    page = seller_client.get(f"{BASE}/contacts", {"per_page": 3, "page": 3}).json()
    assert (page["total"], page["total_pages"], len(page["contacts"])) == (8, 3, 2)
    with django_assert_max_num_queries(12):
        listing = seller_client.get(f"{BASE}/contacts", {"per_page": 100})
    assert len(listing.json()["contacts"]) == 8
    error(seller_client.get(f"{BASE}/contacts", {"ordering": "email"}), 400, "invalid_param")
    error(seller_client.get(f"{BASE}/contacts", {"per_page": 0}), 400, "invalid_param")


def test_the_list_query_count_does_not_grow_with_the_page(
    seller_client, django_assert_max_num_queries
):
    for index in range(30):
        contact = make_contact(name=f"C {index}", customer_id=make_customer(f"c{index}@x.io").pk)
        make_activity(contact_id=contact.pk)
        make_lead(contact_id=contact.pk)
    with django_assert_max_num_queries(12):
        body = seller_client.get(f"{BASE}/contacts", {"per_page": 30}).json()
    assert {c["lead_count"] for c in body["contacts"]} == {1}
    assert {c["open_activity_count"] for c in body["contacts"]} == {1}


def test_a_contact_with_leads_is_in_use_and_activities_go_with_it(seller_client):
    contact = make_contact()
    lead = make_lead(contact_id=contact.pk)
    make_activity(contact_id=contact.pk)
    error(seller_client.delete(f"{BASE}/contacts/{contact.pk}"), 409, "in_use")
    assert Contact.objects.filter(pk=contact.pk).exists()
    assert Activity.objects.count() == 1
    lead.delete()
    assert seller_client.delete(f"{BASE}/contacts/{contact.pk}").status_code == 204
    assert not Activity.objects.exists()


def test_import_customers_is_idempotent_and_links_by_customer(
    seller_client, django_assert_max_num_queries
):
    ada = make_customer("ada@example.com", first_name="Ada", last_name="Lovelace", phone="+44 1")
    grace = make_customer("grace@example.com", first_name="Grace", company="Navy")
    make_customer("anon@example.com")
    Customer.objects.filter(email="anon@example.com").update(anonymised_at="2026-01-01T00:00Z")
    existing = make_contact(name="G. Hopper", email="grace@example.com")
    url = f"{BASE}/contacts/import-customers"
    with django_assert_max_num_queries(20):
        first = seller_client.post(url, {}, format="json")
    assert first.status_code == 200, first.content
    assert first.json() == {"created": 1, "updated": 1, "skipped": 0}
    existing.refresh_from_db()
    assert (existing.customer_id, existing.name, existing.company) == (grace.pk, "Grace", "Navy")
    ada_contact = Contact.objects.get(customer=ada)
    assert (ada_contact.name, ada_contact.email, ada_contact.phone) == (
        "Ada Lovelace",
        "ada@example.com",
        "+44 1",
    )
    assert seller_client.post(url, {}, format="json").json() == {
        "created": 0,
        "updated": 0,
        "skipped": 2,
    }
    Customer.objects.filter(pk=ada.pk).update(phone="+44 2")
    assert seller_client.post(url).json() == {"created": 0, "updated": 1, "skipped": 1}
    assert Contact.objects.count() == 2


def test_import_queries_are_bounded(seller_client, django_assert_max_num_queries):
    for index in range(40):
        make_customer(f"c{index}@example.com", first_name=f"C{index}")
    with django_assert_max_num_queries(20):
        body = seller_client.post(f"{BASE}/contacts/import-customers").json()
    assert body == {"created": 40, "updated": 0, "skipped": 0}


def test_contacts_need_the_crm_capability_and_the_licence(store_client, anon, seller, erp_on):
    other = store_client(grant(UserFactory(), "ec_manage_purchasing"))
    for method, path in (
        ("get", "/contacts"),
        ("post", "/contacts"),
        ("post", "/contacts/import-customers"),
    ):
        error(
            getattr(other, method)(f"{BASE}{path}", {}, format="json"),
            403,
            "insufficient_capability",
        )
        error(getattr(anon, method)(f"{BASE}{path}", {}, format="json"), 401)
    assert store_client(seller).get(f"{BASE}/contacts").status_code == 200
    assert not Contact.objects.exists()


def test_403_erp_not_active_without_the_erp(store_client, seller):
    client = store_client(seller)
    error(client.get(f"{BASE}/contacts"), 403, "erp_not_active")
    error(client.post(f"{BASE}/contacts", {"name": "X"}, format="json"), 403, "erp_not_active")
    error(client.post(f"{BASE}/contacts/import-customers"), 403, "erp_not_active")
    assert not Contact.objects.exists()


def test_a_concurrent_import_is_refused_whole_not_a_500(seller_client, monkeypatch):
    make_customer("ada@example.com")
    make_customer("bob@example.com")

    def racing(rows, *args, **kwargs):  # another import linked the customer meanwhile
        raise IntegrityError("UNIQUE constraint failed: erp_crm_contact.customer_id")

    monkeypatch.setattr(Contact.objects, "bulk_create", racing)
    error(seller_client.post(f"{BASE}/contacts/import-customers"), 409, "import_conflict")
    assert not Contact.objects.exists()


def test_a_customer_linked_meanwhile_is_a_400_not_a_500(seller_client, monkeypatch):
    customer = make_customer()
    contact = make_contact(name="First")
    Contact.objects.filter(pk=contact.pk).update(customer=customer)  # after the check
    monkeypatch.setattr(
        services,
        "_contact_values",
        lambda fields, contact: {"name": "Second", "customer": customer},
    )
    body = error(seller_client.post(f"{BASE}/contacts", {"name": "Second"}, format="json"), 400)
    assert "customer_id" in body["data"]["params"]
    assert Contact.objects.count() == 1


def test_linking_and_unlinking_a_customer(seller_client):
    contact = make_contact()
    customer = make_customer()
    url = f"{BASE}/contacts/{contact.pk}"
    linked = seller_client.patch(url, {"customer_id": customer.pk}, format="json").json()
    assert linked["customer"] == {"id": customer.pk, "email": customer.email}
    assert seller_client.get(f"{BASE}/contacts", {"is_customer": "true"}).json()["total"] == 1
    unlinked = seller_client.patch(url, {"customer_id": None}, format="json").json()
    assert unlinked["customer"] is None
    error(
        seller_client.patch(f"{BASE}/contacts/99999", {"name": "X"}, format="json"),
        404,
        "contact_not_found",
    )
    error(seller_client.delete(f"{BASE}/contacts/99999"), 404, "contact_not_found")
