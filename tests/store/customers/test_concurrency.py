"""Real concurrent transactions (PostgreSQL): a customer's address writes serialise on the
customer's row, so one default per type and the address limit hold."""

import pytest

from common.errors import ServiceError
from store.customers import services
from store.customers.models import CustomerAddress
from tests.concurrency import race
from tests.store.customers.factories import CustomerFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]

ATHENS = {
    "first_name": "Ana",
    "last_name": "Pappas",
    "address_1": "Odos 1",
    "city": "Athens",
    "postcode": "10558",
    "country": "GR",
}


def create(customer_id: int, city: str, **fields):
    return lambda: services.address_create(
        customer_id=customer_id,
        fields={"type": "billing", "address": {**ATHENS, "city": city}, **fields},
    )


def test_simultaneous_first_addresses_make_one_default():
    customer = CustomerFactory()
    results = race(*[create(customer.pk, f"City {n}") for n in range(4)])
    assert all(isinstance(r, CustomerAddress) for r in results), results
    assert CustomerAddress.objects.filter(customer=customer).count() == 4
    assert CustomerAddress.objects.filter(customer=customer, is_default=True).count() == 1


def test_simultaneous_new_defaults_leave_one():
    customer = CustomerFactory()
    results = race(*[create(customer.pk, f"City {n}", is_default=True) for n in range(4)])
    assert all(isinstance(r, CustomerAddress) for r in results), results
    assert CustomerAddress.objects.filter(customer=customer, is_default=True).count() == 1


def test_the_limit_holds_under_simultaneous_writes():
    customer = CustomerFactory()
    CustomerAddress.objects.bulk_create(
        CustomerAddress(customer=customer, type="shipping", address=ATHENS)
        for _ in range(services.ADDRESS_LIMIT - 1)
    )
    results = race(*[create(customer.pk, f"City {n}") for n in range(3)])
    refused = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refused} == {"address_limit_reached"}
    assert len(refused) == 2
    assert CustomerAddress.objects.filter(customer=customer).count() == services.ADDRESS_LIMIT
