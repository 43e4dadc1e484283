"""A customer's saved addresses (staff): list, create, read, update, delete; one default per
type; checked by the shared address rule."""

import pytest

from store.customers.models import CustomerAddress
from store.customers.services import ADDRESS_LIMIT
from tests.fixtures.store import API, error
from tests.store.customers.factories import CustomerFactory

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
def person():
    return CustomerFactory()


def add(client, customer, **fields):
    body = {"type": "billing", **ATHENS, **fields}
    response = client.post(f"{API}/customers/{customer.pk}/addresses", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def defaults(customer) -> dict:
    return dict(
        CustomerAddress.objects.filter(customer=customer, is_default=True).values_list("type", "id")
    )


def test_the_first_address_of_a_type_is_its_default(manager_client, person):
    first = add(manager_client, person)
    assert (first["type"], first["is_default"], first["customer_id"]) == (
        "billing",
        True,
        person.pk,
    )
    second = add(manager_client, person, city="Patra")
    assert second["is_default"] is False
    shipping = add(manager_client, person, type="SHIPPING", is_default=False)
    assert (shipping["type"], shipping["is_default"]) == ("shipping", True)
    assert defaults(person) == {"billing": first["id"], "shipping": shipping["id"]}
    listed = manager_client.get(f"{API}/customers/{person.pk}/addresses").json()["addresses"]
    assert [a["id"] for a in listed] == [first["id"], second["id"], shipping["id"]]
    only = manager_client.get(f"{API}/customers/{person.pk}/addresses", {"type": "shipping"})
    assert [a["id"] for a in only.json()["addresses"]] == [shipping["id"]]


def test_a_new_default_replaces_the_old_one(manager_client, person):
    first = add(manager_client, person)
    second = add(manager_client, person, city="Patra", is_default=True)
    assert defaults(person) == {"billing": second["id"]}
    response = manager_client.patch(
        f"{API}/addresses/{first['id']}", {"is_default": True}, format="json"
    )
    assert response.json()["is_default"] is True
    assert defaults(person) == {"billing": first["id"]}
    customer = manager_client.get(f"{API}/customers/{person.pk}").json()
    assert customer["billing"]["id"] == first["id"]


def test_the_default_cannot_be_unset_alone(manager_client, person):
    first = add(manager_client, person)
    error(
        manager_client.patch(
            f"{API}/addresses/{first['id']}", {"is_default": False}, format="json"
        ),
        400,
        "default_address_required",
    )
    assert defaults(person) == {"billing": first["id"]}


def test_deleting_the_default_promotes_the_newest_other(manager_client, person):
    first = add(manager_client, person)
    second = add(manager_client, person, city="Patra")
    third = add(manager_client, person, city="Volos")
    assert manager_client.delete(f"{API}/addresses/{first['id']}").status_code == 204
    assert defaults(person) == {"billing": third["id"]}
    assert manager_client.delete(f"{API}/addresses/{second['id']}").status_code == 204
    assert defaults(person) == {"billing": third["id"]}
    assert manager_client.delete(f"{API}/addresses/{third['id']}").status_code == 204
    assert defaults(person) == {}
    error(manager_client.get(f"{API}/addresses/{third['id']}"), 404, "address_not_found")


def test_moving_an_address_to_the_other_type(manager_client, person):
    billing = add(manager_client, person)
    other = add(manager_client, person, city="Patra")
    moved = manager_client.patch(
        f"{API}/addresses/{billing['id']}", {"type": "shipping"}, format="json"
    ).json()
    assert (moved["type"], moved["is_default"]) == ("shipping", True)
    assert defaults(person) == {"billing": other["id"], "shipping": billing["id"]}


def test_a_partial_update_keeps_the_other_keys_and_stays_complete(manager_client, person):
    row = add(manager_client, person, state="I")
    url = f"{API}/addresses/{row['id']}"
    body = manager_client.put(url, {"city": "Marousi", "phone": "+30 1"}, format="json").json()
    assert (body["city"], body["phone"], body["first_name"], body["region"]) == (
        "Marousi",
        "+30 1",
        "Ana",
        "I",
    )
    assert manager_client.get(url).json() == body
    answer = error(manager_client.patch(url, {"city": ""}, format="json"), 400, "invalid_param")
    assert set(answer["data"]["params"]) == {"city"}
    error(manager_client.patch(url, {"country": "FR"}, format="json"), 400)  # I is not French
    error(manager_client.patch(url, {"type": "home"}, format="json"), 400, "invalid_param")
    error(manager_client.patch(url, {"is_default": "yes"}, format="json"), 400)
    error(manager_client.patch(url, ["city"], format="json"), 400)
    assert manager_client.get(url).json()["city"] == "Marousi"


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ({**ATHENS}, {"type"}),
        ({"type": "office", **ATHENS}, {"type"}),
        ({"type": "billing"}, {"first_name", "last_name", "address_1", "city", "postcode"}),
        ({"type": "billing", **ATHENS, "country": "ZZ"}, {"country"}),
        ({"type": "billing", **ATHENS, "postcode": "10558!"}, {"postcode"}),
        ({"type": "billing", **ATHENS, "email": "nope"}, {"email"}),
        ({"type": "billing", **ATHENS, "city": "x" * 101}, {"city"}),
        ({"type": "billing", **ATHENS, "city": "a\x00b"}, None),  # the JSON loader's 400
        ({"type": "billing", **ATHENS, "city": ["Athens"]}, {"city"}),
        ({"type": "billing", **ATHENS, "address_1": {"line": 1}}, {"address_1"}),
        ({"type": "billing", **ATHENS, "is_default": 1}, {"is_default"}),
    ],
)
def test_refused_addresses_change_nothing(manager_client, person, body, params):
    response = manager_client.post(f"{API}/customers/{person.pk}/addresses", body, format="json")
    answer = error(response, 400)
    if params is not None:
        assert params <= set(answer["data"]["params"]), answer
    assert CustomerAddress.objects.count() == 0


def test_a_country_without_postcodes_needs_none(manager_client, person):
    row = add(manager_client, person, country="AE", postcode="")
    assert row["country"] == "AE"


def test_the_number_of_addresses_is_limited(manager_client, person):
    CustomerAddress.objects.bulk_create(
        CustomerAddress(customer=person, type="shipping", address=ATHENS)
        for _ in range(ADDRESS_LIMIT)
    )
    response = manager_client.post(
        f"{API}/customers/{person.pk}/addresses", {"type": "billing", **ATHENS}, format="json"
    )
    error(response, 409, "address_limit_reached")
    assert CustomerAddress.objects.count() == ADDRESS_LIMIT


def test_address_routes_refuse_outsiders(anon, customer_client, manager_client, person):
    row = add(manager_client, person)
    urls = [f"{API}/customers/{person.pk}/addresses", f"{API}/addresses/{row['id']}"]
    for client, status in ((anon, 401), (customer_client, 403)):
        for url in urls:
            error(client.get(url), status)
        error(client.post(urls[0], {"type": "billing", **ATHENS}, format="json"), status)
        error(client.patch(urls[1], {"city": "X"}, format="json"), status)
        error(client.delete(urls[1]), status)
    assert CustomerAddress.objects.get().address["city"] == "Athens"
    error(manager_client.get(f"{API}/customers/999999/addresses"), 404, "customer_not_found")
    error(
        manager_client.post(f"{API}/customers/999999/addresses", {"type": "billing", **ATHENS}),
        404,
    )
    for method in ("get", "patch", "delete"):
        error(getattr(manager_client, method)(f"{API}/addresses/999999"), 404, "address_not_found")
