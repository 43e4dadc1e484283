"""The customers admin: addresses inline, order stats and latest orders shown; every write
(the customer, its addresses, its deletion) through the services."""

import pytest
from django.urls import reverse

from store.customers.models import Customer, CustomerAddress
from store.orders.models import Order
from tests.admin_forms import csrf_client, form_errors, form_values, post_form
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

ATHENS = {
    "first_name": "Ana",
    "last_name": "Pappas",
    "address_1": "Odos 1",
    "city": "Athens",
    "postcode": "10558",
    "country": "GR",
}


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


def change_url(customer) -> str:
    return reverse("admin:store_customers_customer_change", args=[customer.pk])


def inline(index: int, **values) -> dict:
    out = {f"addresses-{index}-{key}": value for key, value in values.items() if key != "address"}
    for key, value in values.get("address", {}).items():
        out[f"addresses-{index}-address_{key}"] = value
    return out


def test_the_change_page_shows_addresses_stats_and_orders(browser):
    customer = CustomerFactory()
    CustomerAddress.objects.create(
        customer=customer, type="billing", is_default=True, address=ATHENS
    )
    order = make_order(line(stocked(price="12.50")), customer=customer, status="completed")
    page = browser.get(change_url(customer)).content.decode()
    assert 'value="Athens"' in page
    assert "1 orders; spent 12.50 EUR over 1 paid orders" in page
    assert order.order_number in page
    assert reverse("admin:store_orders_order_change", args=[order.pk]) in page
    assert browser.get(reverse("admin:store_customers_customer_changelist")).status_code == 200
    assert browser.get(reverse("admin:store_customers_customer_add")).status_code == 200


def test_adding_addresses_inline_goes_through_the_rules(browser):
    customer = CustomerFactory()
    url = change_url(customer)
    values = form_values(browser, url)
    values.update(
        {"addresses-TOTAL_FORMS": "2"},
        **inline(0, type="billing", address=ATHENS),
        **inline(1, type="shipping", address={**ATHENS, "city": "Patra"}),
    )
    response = browser.post(url, values)
    assert response.status_code == 302, form_errors(response)
    rows = {row.type: row for row in customer.addresses.all()}
    assert (rows["billing"].is_default, rows["billing"].address["city"]) == (True, "Athens")
    assert rows["shipping"].address == {**ATHENS, "city": "Patra"}
    # An incomplete or invalid address is refused, nothing saved.
    values = form_values(browser, url)
    values.update(
        {"addresses-TOTAL_FORMS": "3"},
        **inline(2, type="billing", address={"city": "Volos", "country": "XX"}),
    )
    response = browser.post(url, values)
    assert response.status_code == 200
    assert customer.addresses.count() == 2


def test_changing_an_address_inline_keeps_one_default(browser):
    customer = CustomerFactory()
    first = CustomerAddress.objects.create(
        customer=customer, type="billing", is_default=True, address=ATHENS
    )
    second = CustomerAddress.objects.create(
        customer=customer, type="billing", address={**ATHENS, "city": "Patra"}
    )
    url = change_url(customer)
    values = form_values(browser, url)
    index = 0 if values["addresses-0-id"] == str(second.pk) else 1
    values[f"addresses-{index}-is_default"] = "on"
    values[f"addresses-{index}-address_phone"] = "+30 2"
    response = browser.post(url, values)
    assert response.status_code == 302, form_errors(response)
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.is_default, second.is_default, second.address["phone"]) == (
        False,
        True,
        "+30 2",
    )


def test_a_customer_change_goes_through_the_service(browser):
    CustomerFactory(email="taken@example.com")
    customer = CustomerFactory(email="mine@example.com")
    response = post_form(browser, change_url(customer), email="TAKEN@example.com")
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.email == "mine@example.com"
    response = post_form(browser, change_url(customer), email="New@Example.com")
    assert response.status_code == 302, form_errors(response)
    customer.refresh_from_db()
    assert customer.email == "new@example.com"


def test_deleting_a_customer_with_orders_anonymises_it(browser):
    customer = CustomerFactory(first_name="Ana")
    order = make_order(line(stocked()), customer=customer, billing_address=ATHENS)
    url = reverse("admin:store_customers_customer_delete", args=[customer.pk])
    response = post_form(browser, url, post="yes")
    assert response.status_code == 302
    customer.refresh_from_db()
    assert customer.anonymised_at is not None
    assert customer.first_name == ""
    assert Order.objects.get(pk=order.pk).billing_address["city"] == "Athens"
    # without orders it is deleted
    other = CustomerFactory()
    url = reverse("admin:store_customers_customer_delete", args=[other.pk])
    assert post_form(browser, url, post="yes").status_code == 302
    assert not Customer.objects.filter(pk=other.pk).exists()
