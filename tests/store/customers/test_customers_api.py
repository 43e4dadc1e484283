"""Customers for staff: list (search, filters, orderings, pages), create, read, update, delete
(anonymising a customer with orders), find by e-mail, counts; and every refusal."""

from datetime import timedelta

import pytest
from django.utils import timezone

from store.customers.models import Customer, CustomerAddress
from store.orders.models import Order
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

CUSTOMERS = f"{API}/customers"
ATHENS = {
    "first_name": "Ana",
    "last_name": "Pappas",
    "address_1": "Odos 1",
    "city": "Athens",
    "postcode": "105 58",
    "country": "gr",
}


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [c["id"] for c in response.json()["customers"]]


# --- List ----------------------------------------------------------------------------------------


def test_the_list_answers_the_named_key_page(manager_client):
    made = [CustomerFactory() for _ in range(3)]
    body = manager_client.get(CUSTOMERS, {"per_page": 2}).json()
    assert set(body) == {"customers", "total", "page", "per_page", "total_pages"}
    assert (body["total"], body["page"], body["per_page"], body["total_pages"]) == (3, 1, 2, 2)
    assert [c["id"] for c in body["customers"]] == [made[2].pk, made[1].pk]
    second = manager_client.get(CUSTOMERS, {"per_page": 2, "page": 2}).json()
    assert [c["id"] for c in second["customers"]] == [made[0].pk]
    past = manager_client.get(CUSTOMERS, {"page": 9}).json()
    assert (past["customers"], past["total"]) == ([], 3)
    capped = manager_client.get(CUSTOMERS, {"per_page": 1000}).json()
    assert capped["per_page"] == 100


def test_the_list_entry_shape(manager_client):
    user = UserFactory()
    customer = CustomerFactory(email="kim@example.com", first_name="Kim", user=user, phone="1")
    CustomerAddress.objects.create(
        customer=customer, type="billing", is_default=True, address={"city": "Athens"}
    )
    entry = manager_client.get(CUSTOMERS).json()["customers"][0]
    assert entry["email"] == "kim@example.com"
    assert entry["full_name"] == f"Kim {customer.last_name}"
    assert (entry["user_id"], entry["registered"], entry["anonymised"]) == (user.pk, True, False)
    assert entry["billing"]["city"] == "Athens"
    assert entry["billing"]["is_default"] is True
    assert entry["shipping"] is None


def test_search_finds_each_word_in_email_or_names(manager_client):
    ana = CustomerFactory(email="ana@shop.example", first_name="Ana", last_name="Pappas")
    bob = CustomerFactory(email="bob@example.com", first_name="Bob", last_name="Pappas")
    CustomerFactory(email="cy@example.com", first_name="Cy", last_name="Other")
    assert ids(manager_client.get(CUSTOMERS, {"search": "pappas"})) == [bob.pk, ana.pk]
    assert ids(manager_client.get(CUSTOMERS, {"search": "Ana Pappas"})) == [ana.pk]
    assert ids(manager_client.get(CUSTOMERS, {"search": "shop.example"})) == [ana.pk]
    assert ids(manager_client.get(CUSTOMERS, {"search": "nobody"})) == []


def test_the_filters(manager_client):
    registered = CustomerFactory(user=UserFactory())
    guest = CustomerFactory()
    buyer = CustomerFactory()
    make_order(line(stocked()), customer=buyer)
    old = CustomerFactory(created_at=timezone.now() - timedelta(days=40))
    greek = CustomerFactory()
    CustomerAddress.objects.create(customer=greek, type="shipping", address={"country": "GR"})
    gone = CustomerFactory(anonymised_at=timezone.now())
    get = manager_client.get
    assert registered.pk in ids(get(CUSTOMERS, {"registered": "true"}))
    assert ids(get(CUSTOMERS, {"registered": "true"})) == [registered.pk]
    assert guest.pk in ids(get(CUSTOMERS, {"registered": "false"}))
    assert ids(get(CUSTOMERS, {"has_orders": "true"})) == [buyer.pk]
    assert buyer.pk not in ids(get(CUSTOMERS, {"has_orders": "false"}))
    assert ids(get(CUSTOMERS, {"country": "gr"})) == [greek.pk]
    day = (timezone.now() - timedelta(days=40)).date().isoformat()
    assert ids(get(CUSTOMERS, {"date_from": day, "date_to": day})) == [old.pk]
    assert old.pk not in ids(get(CUSTOMERS, {"date_from": timezone.now().date().isoformat()}))
    assert ids(get(CUSTOMERS, {"email": guest.email.upper()})) == [guest.pk]
    # anonymised customers are left out unless asked for
    assert gone.pk not in ids(get(CUSTOMERS))
    assert ids(get(CUSTOMERS, {"status": "anonymised"})) == [gone.pk]
    assert gone.pk in ids(get(CUSTOMERS, {"status": "any"}))


def test_the_orderings(manager_client):
    b = CustomerFactory(email="b@example.com", first_name="Zed", last_name="Alpha")
    a = CustomerFactory(email="a@example.com", first_name="Amy", last_name="Beta")
    c = CustomerFactory(
        email="c@example.com",
        first_name="Al",
        last_name="Alpha",
        created_at=timezone.now() - timedelta(days=3),
    )
    get = manager_client.get
    assert ids(get(CUSTOMERS, {"orderby": "email", "order": "asc"})) == [a.pk, b.pk, c.pk]
    assert ids(get(CUSTOMERS, {"orderby": "email"})) == [c.pk, b.pk, a.pk]
    assert ids(get(CUSTOMERS, {"orderby": "name", "order": "asc"})) == [c.pk, b.pk, a.pk]
    assert ids(get(CUSTOMERS, {"orderby": "date"})) == [a.pk, b.pk, c.pk]
    assert ids(get(CUSTOMERS, {"orderby": "id", "order": "asc"})) == [b.pk, a.pk, c.pk]
    assert ids(get(CUSTOMERS, {"orderby": "modified", "order": "ASC"}))[0] == b.pk


@pytest.mark.parametrize(
    "params",
    [
        {"page": "0"},
        {"page": "99999999999999999999"},
        {"per_page": "0"},
        {"per_page": "x"},
        {"orderby": "password"},
        {"order": "sideways"},
        {"status": "deleted"},
        {"registered": "maybe"},
        {"country": "XX"},
        {"date_from": "yesterday"},
        {"search": "a\x00b"},
        {"search": "x" * 201},
    ],
)
def test_bad_list_parameters_are_400(manager_client, params):
    body = error(manager_client.get(CUSTOMERS, params), 400, "invalid_param")
    assert set(body["data"]["params"]) == set(params)


# --- Access --------------------------------------------------------------------------------------

STAFF_READS = [
    "/customers",
    "/customers/stats",
    "/customers-with-stats",
    "/customers/find-by-email?email=a@example.com",
    "/customers/{id}",
    "/customers/{id}/orders",
    "/customers/{id}/stats",
    "/customers/{id}/profile",
    "/customers/{id}/top-products",
    "/customers/{id}/spending-history",
    "/customers/{id}/addresses",
]


@pytest.mark.parametrize("path", STAFF_READS)
def test_staff_routes_refuse_anonymous_and_customers(anon, customer_client, path):
    customer = CustomerFactory()
    url = API + path.replace("{id}", str(customer.pk))
    error(anon.get(url), 401, "not_logged_in")
    error(customer_client.get(url), 403, "insufficient_capability")


def test_writes_without_the_capability_change_nothing(anon, customer_client, store_client):
    customer = CustomerFactory(first_name="Kept")
    orders_manager = store_client(grant(UserFactory(), "ec_manage_orders"))
    for client, status in ((anon, 401), (customer_client, 403), (orders_manager, 403)):
        error(client.post(CUSTOMERS, {"email": "new@example.com"}, format="json"), status)
        error(
            client.patch(f"{CUSTOMERS}/{customer.pk}", {"first_name": "X"}, format="json"),
            status,
        )
        error(client.delete(f"{CUSTOMERS}/{customer.pk}"), status)
    assert list(Customer.objects.values_list("first_name", flat=True)) == ["Kept"]


def test_the_capability_alone_is_enough(store_client):
    client = store_client(grant(UserFactory(), "ec_manage_customers"))
    assert client.get(CUSTOMERS).status_code == 200
    response = client.post(CUSTOMERS, {"email": "cap@example.com"}, format="json")
    assert response.status_code == 201, response.content


def test_an_administrator_may(admin_client_api):
    assert admin_client_api.get(CUSTOMERS).status_code == 200


# --- Create --------------------------------------------------------------------------------------


def test_create_with_default_addresses(manager_client):
    user = UserFactory()
    response = manager_client.post(
        CUSTOMERS,
        {
            "email": " Kim@Example.COM ",
            "first_name": "Kim",
            "last_name": "Lee",
            "company": "Lee Ltd",
            "phone": "+30 210",
            "note": "VIP",
            "user_id": user.pk,
            "billing": ATHENS,
            "shipping": {**ATHENS, "state": "gr-i", "city": "Marousi"},
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["email"], body["user_id"], body["note"]) == ("kim@example.com", user.pk, "VIP")
    assert body["billing"]["country"] == "GR"
    assert body["billing"]["postcode"] == "105 58"
    assert (body["shipping"]["city"], body["shipping"]["region"]) == ("Marousi", "I")
    customer = Customer.objects.get(pk=body["id"])
    assert customer.addresses.filter(is_default=True).count() == 2
    assert manager_client.get(f"{CUSTOMERS}/{customer.pk}").json() == body


def test_create_refusals_change_nothing(manager_client):
    taken = CustomerFactory(email="taken@example.com", user=UserFactory())
    cases = [
        ({}, 400, "invalid_param", "email"),
        ({"email": "not-an-address"}, 400, "invalid_param", "email"),
        ({"email": "TAKEN@example.com"}, 400, "duplicate_customer", "email"),
        ({"email": "n@example.com", "user_id": taken.user_id}, 400, "duplicate_customer", None),
        ({"email": "n@example.com", "user_id": 999999}, 400, "invalid_param", "user_id"),
        ({"email": "n@example.com", "user_id": 2**70}, 400, "invalid_param", "user_id"),
        ({"email": "n@example.com", "user_id": True}, 400, "invalid_param", "user_id"),
        ({"email": "n@example.com", "first_name": "x" * 101}, 400, "invalid_param", "first_name"),
        ({"email": "n@example.com", "first_name": ["Ana"]}, 400, "invalid_param", "first_name"),
        ({"email": "n@example.com", "billing": {"city": "Athens"}}, 400, "invalid_param", None),
        ({"email": "n@example.com", "billing": [ATHENS]}, 400, "invalid_param", None),
        (
            {"email": "n@example.com", "billing": {**ATHENS, "country": "XX"}},
            400,
            "invalid_param",
            "billing.country",
        ),
        (
            {"email": "n@example.com", "shipping": {**ATHENS, "state": "Nowhere"}},
            400,
            "invalid_param",
            "shipping.state",
        ),
    ]
    for body, status, code, param in cases:
        answer = error(manager_client.post(CUSTOMERS, body, format="json"), status, code)
        if param:
            assert param in answer["data"]["params"], (body, answer)
    incomplete = error(
        manager_client.post(
            CUSTOMERS, {"email": "n@example.com", "billing": {"city": "Athens"}}, format="json"
        ),
        400,
    )
    assert {"billing.first_name", "billing.address_1", "billing.country"} <= set(
        incomplete["data"]["params"]
    )
    assert Customer.objects.count() == 1
    assert CustomerAddress.objects.count() == 0


@pytest.mark.parametrize(
    "raw",
    [
        '{"email": "a\\u0000b@example.com"}',
        '{"email": "a@example.com", "first_name": "\\ud800"}',
        '["email"]',
        '"just a string"',
        '{"email": "a@example.com"',
    ],
)
def test_unusable_bodies_are_400(manager_client, raw):
    response = manager_client.generic("POST", CUSTOMERS, raw, content_type="application/json")
    error(response, 400)
    assert Customer.objects.count() == 0


def test_create_takes_an_idempotency_key(manager_client):
    headers = {"HTTP_IDEMPOTENCY_KEY": "customer-create-0001"}
    first = manager_client.post(CUSTOMERS, {"email": "once@example.com"}, format="json", **headers)
    again = manager_client.post(CUSTOMERS, {"email": "once@example.com"}, format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert again["Idempotent-Replayed"] == "true"
    assert Customer.objects.count() == 1
    other = manager_client.post(CUSTOMERS, {"email": "two@example.com"}, format="json", **headers)
    error(other, 422, "idempotency_key_reused")


# --- Read, update ---------------------------------------------------------------------------------


def test_a_missing_customer_is_404(manager_client):
    for method in ("get", "patch", "delete"):
        error(getattr(manager_client, method)(f"{CUSTOMERS}/999999"), 404, "customer_not_found")
    error(manager_client.get(f"{CUSTOMERS}/99999999999999999999999"), 404)
    error(manager_client.get(f"{CUSTOMERS}/abc"), 404)


def test_update_changes_only_what_is_sent(manager_client):
    customer = CustomerFactory(first_name="Ana", phone="1", note="old")
    response = manager_client.patch(
        f"{CUSTOMERS}/{customer.pk}",
        {"phone": "2", "email": "NEW@example.com", "shipping": ATHENS},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["first_name"], body["phone"], body["note"], body["email"]) == (
        "Ana",
        "2",
        "old",
        "new@example.com",
    )
    assert body["shipping"]["city"] == "Athens"
    # PUT is the same partial update; a second shipping replaces the default
    response = manager_client.put(
        f"{CUSTOMERS}/{customer.pk}", {"shipping": {**ATHENS, "city": "Patra"}}, format="json"
    )
    assert response.json()["shipping"]["city"] == "Patra"
    assert customer.addresses.count() == 1


def test_update_refusals_change_nothing(manager_client):
    CustomerFactory(email="taken@example.com")
    customer = CustomerFactory(email="mine@example.com")
    url = f"{CUSTOMERS}/{customer.pk}"
    error(manager_client.patch(url, {"email": "taken@example.com"}, format="json"), 400)
    error(manager_client.patch(url, {"phone": "x" * 41}, format="json"), 400)
    error(manager_client.patch(url, [{"phone": "1"}], format="json"), 400, "invalid_param")
    error(
        manager_client.patch(url, {"email": "b@x.com", "billing": {"city": "A"}}, format="json"),
        400,
    )
    customer.refresh_from_db()
    assert (customer.email, customer.phone) == ("mine@example.com", "")
    assert customer.addresses.count() == 0


# --- Delete and anonymise -------------------------------------------------------------------------


def test_a_customer_without_orders_is_deleted(manager_client):
    customer = CustomerFactory()
    CustomerAddress.objects.create(customer=customer, type="billing", address=ATHENS)
    assert manager_client.delete(f"{CUSTOMERS}/{customer.pk}").status_code == 204
    assert not Customer.objects.filter(pk=customer.pk).exists()
    assert CustomerAddress.objects.count() == 0


def test_a_customer_with_orders_is_anonymised_and_its_orders_keep_their_snapshots(
    manager_client,
):
    user = UserFactory()
    customer = CustomerFactory(
        email="ana@example.com", first_name="Ana", phone="123", note="n", user=user
    )
    CustomerAddress.objects.create(customer=customer, type="billing", address=ATHENS)
    billing = {**ATHENS, "country": "GR", "email": "ana@example.com"}
    order = make_order(
        line(stocked(title="Lamp")),
        customer=customer,
        billing_address=billing,
        shipping_address=billing,
    )
    before = Order.objects.values("billing_address", "shipping_address", "total").get(pk=order.pk)
    assert manager_client.delete(f"{CUSTOMERS}/{customer.pk}").status_code == 204
    body = manager_client.get(f"{CUSTOMERS}/{customer.pk}").json()
    assert body["anonymised"] is True
    assert body["email"] == f"customer-{customer.pk}@anonymised.invalid"
    assert (body["first_name"], body["phone"], body["note"], body["user_id"]) == ("", "", "", None)
    assert (body["billing"], body["shipping"]) == (None, None)
    assert CustomerAddress.objects.count() == 0
    order.refresh_from_db()
    assert order.customer_id == customer.pk
    after = Order.objects.values("billing_address", "shipping_address", "total").get(pk=order.pk)
    assert after == before
    assert after["billing_address"]["first_name"] == "Ana"
    staff_order = manager_client.get(f"{API}/orders/{order.pk}").json()
    assert staff_order["billing_address"]["city"] == "Athens"
    # The orders list still finds the customer's orders.
    page = manager_client.get(f"{CUSTOMERS}/{customer.pk}/orders").json()
    assert [o["id"] for o in page["orders"]] == [order.pk]
    # Deleting again changes nothing; writes are refused; the e-mail address is free again.
    assert manager_client.delete(f"{CUSTOMERS}/{customer.pk}").status_code == 204
    error(
        manager_client.patch(f"{CUSTOMERS}/{customer.pk}", {"first_name": "X"}, format="json"),
        409,
        "customer_anonymised",
    )
    error(
        manager_client.post(f"{CUSTOMERS}/{customer.pk}/addresses", {"type": "billing", **ATHENS}),
        409,
        "customer_anonymised",
    )
    again = manager_client.post(CUSTOMERS, {"email": "ana@example.com"}, format="json")
    assert again.status_code == 201
    user.refresh_from_db()
    assert user.is_active  # the account itself stays


# --- Find by e-mail, counts ---------------------------------------------------------------------


def test_find_by_email(manager_client):
    customer = CustomerFactory(email="kim@example.com")
    url = f"{CUSTOMERS}/find-by-email"
    assert manager_client.get(url, {"email": "KIM@example.com"}).json()["id"] == customer.pk
    error(manager_client.get(url, {"email": "nobody@example.com"}), 404, "customer_not_found")
    error(manager_client.get(url), 400, "invalid_param")
    error(manager_client.get(url, {"email": "not an address"}), 400, "invalid_param")


def test_customer_counts(manager_client):
    CustomerFactory(user=UserFactory())
    buyer = CustomerFactory()
    make_order(line(stocked()), customer=buyer)
    CustomerFactory(created_at=timezone.now() - timedelta(days=60))
    CustomerFactory(anonymised_at=timezone.now())
    body = manager_client.get(f"{CUSTOMERS}/stats").json()
    assert body == {
        "total": 4,
        "registered": 1,
        "guests": 3,
        "with_orders": 1,
        "without_orders": 3,
        "anonymised": 1,
        "new_last_30_days": 3,
    }
    active = manager_client.get(f"{CUSTOMERS}/stats", {"status": "active"}).json()
    assert (active["total"], active["anonymised"]) == (3, 0)
    error(manager_client.get(f"{CUSTOMERS}/stats", {"has_orders": "perhaps"}), 400)
