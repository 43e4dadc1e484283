"""GET /orders: shape, paging, every filter, ordering, and query ceilings."""

from datetime import UTC, datetime

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.orders import services
from tests.fixtures.store import API, error
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [order["id"] for order in response.json()["orders"]]


def at(day: str):
    return time_machine.travel(datetime.fromisoformat(day).replace(tzinfo=UTC), tick=False)


def test_the_list_shape(manager_client):
    lamp = stocked(price="10.00")
    customer = CustomerFactory(email="ana@example.com", first_name="Ana")
    order = make_order(line(lamp, 2), customer=customer)
    body = manager_client.get(ORDERS).json()
    assert set(body) == {"orders", "total", "page", "per_page", "total_pages"}
    assert (body["total"], body["page"], body["per_page"], body["total_pages"]) == (1, 1, 20, 1)
    assert body["orders"] == [
        {
            "id": order.pk,
            "order_number": order.order_number,
            "status": "pending",
            "payment_status": "unpaid",
            "fulfillment_status": "unfulfilled",
            "currency": "EUR",
            "total": "20.00",
            "item_count": 2,
            "customer_id": customer.pk,
            "customer": {
                "id": customer.pk,
                "email": "ana@example.com",
                "first_name": "Ana",
                "last_name": customer.last_name,
                "user_id": None,
            },
            "created_at": body["orders"][0]["created_at"],
            "updated_at": body["orders"][0]["updated_at"],
        }
    ]


def test_paging_newest_first(manager_client):
    orders = [make_order() for _ in range(5)]
    body = manager_client.get(ORDERS, {"per_page": 2, "page": 2}).json()
    assert [o["id"] for o in body["orders"]] == [orders[2].pk, orders[1].pk]
    assert (body["total"], body["per_page"], body["total_pages"]) == (5, 2, 3)
    past = manager_client.get(ORDERS, {"per_page": 2, "page": 9}).json()
    assert (past["orders"], past["total"]) == ([], 5)
    assert manager_client.get(ORDERS, {"per_page": 500}).json()["per_page"] == 100


def test_status_filters_take_one_or_several(manager_client):
    pending = make_order()
    processing = make_order(status="processing")
    completed = make_order(status="completed")
    assert ids(manager_client.get(ORDERS, {"status": "processing"})) == [processing.pk]
    assert set(ids(manager_client.get(ORDERS, {"status": "pending,completed"}))) == {
        pending.pk,
        completed.pk,
    }
    services.order_payment_status_set(order_id=pending.pk, payment_status="paid")
    services.order_fulfillment_status_set(order_id=completed.pk, fulfillment_status="fulfilled")
    assert ids(manager_client.get(ORDERS, {"payment_status": "paid"})) == [pending.pk]
    assert ids(manager_client.get(ORDERS, {"fulfillment_status": "fulfilled"})) == [completed.pk]
    assert ids(manager_client.get(ORDERS, {"status": "pending", "payment_status": "unpaid"})) == []


def test_customer_filter(manager_client):
    ana, bo = CustomerFactory(), CustomerFactory()
    mine = make_order(customer=ana)
    make_order(customer=bo)
    assert ids(manager_client.get(ORDERS, {"customer_id": ana.pk})) == [mine.pk]


def test_date_filters_are_inclusive_days_in_utc(manager_client):
    with at("2026-03-01T23:59:00"):
        march_1 = make_order()
    with at("2026-03-02T00:00:00"):
        march_2 = make_order()
    with at("2026-03-05T12:00:00"):
        march_5 = make_order()
    assert ids(manager_client.get(ORDERS, {"date_from": "2026-03-02"})) == [march_5.pk, march_2.pk]
    assert ids(manager_client.get(ORDERS, {"date_to": "2026-03-01"})) == [march_1.pk]
    assert ids(
        manager_client.get(ORDERS, {"date_from": "2026-03-01", "date_to": "2026-03-02"})
    ) == [march_2.pk, march_1.pk]


def test_search(manager_client):
    lamp = stocked(title="Desk lamp", sku="LAMP-9")
    ana = make_order(
        customer=CustomerFactory(email="ana@example.com", first_name="Ana", last_name="Lee")
    )
    billed = make_order(billing_address={"email": "bo@shop.test", "phone": "+30 699"})
    with_lamp = make_order(line(lamp))
    cases = {
        ana.order_number: [ana.pk],
        f"#{ana.order_number}": [ana.pk],
        str(billed.pk): [billed.pk],
        "ana@example": [ana.pk],
        "Lee": [ana.pk],
        "bo@shop": [billed.pk],
        "+30 699": [billed.pk],
        "LAMP-9": [with_lamp.pk],
        "desk": [with_lamp.pk],
        "nothing-like-it": [],
    }
    for term, expected in cases.items():
        assert ids(manager_client.get(ORDERS, {"search": term})) == expected, term


def test_ordering(manager_client):
    cheap = make_order(line(stocked(price="5.00")))
    dear = make_order(line(stocked(price="50.00")))
    middle = make_order(line(stocked(price="20.00")))
    assert ids(manager_client.get(ORDERS, {"orderby": "total", "order": "asc"})) == [
        cheap.pk,
        middle.pk,
        dear.pk,
    ]
    assert ids(manager_client.get(ORDERS, {"orderby": "id", "order": "ASC"})) == [
        cheap.pk,
        dear.pk,
        middle.pk,
    ]
    assert ids(manager_client.get(ORDERS, {"orderby": "order_number"})) == [
        middle.pk,
        dear.pk,
        cheap.pk,
    ]
    assert ids(manager_client.get(ORDERS)) == [middle.pk, dear.pk, cheap.pk]
    services.order_status_set(order_id=cheap.pk, status="processing")
    assert ids(manager_client.get(ORDERS, {"orderby": "status", "order": "asc"})) == [
        dear.pk,
        middle.pk,
        cheap.pk,
    ]
    assert ids(manager_client.get(ORDERS, {"orderby": "modified"}))[0] == cheap.pk


@pytest.mark.parametrize(
    "params",
    [
        {"page": 0},
        {"per_page": 0},
        {"status": "lost"},
        {"status": "pending,lost"},
        {"payment_status": "free"},
        {"fulfillment_status": "sent"},
        {"customer_id": "ana"},
        {"date_from": "yesterday"},
        {"date_to": "2026-13-01"},
        {"orderby": "colour"},
        {"order": "UP"},
    ],
)
def test_invalid_parameters_are_400_naming_them(manager_client, params):
    body = error(manager_client.get(ORDERS, params), 400, "invalid_param")
    assert set(body["data"]["params"]) == set(params)


def test_date_from_after_date_to_is_400(manager_client):
    body = error(
        manager_client.get(ORDERS, {"date_from": "2026-03-02", "date_to": "2026-03-01"}), 400
    )
    assert set(body["data"]["params"]) == {"date_to"}


def test_the_list_needs_the_orders_capability(anon, customer_client):
    make_order()
    error(anon.get(ORDERS), 401, "not_logged_in")
    error(customer_client.get(ORDERS), 403, "insufficient_capability")


def _queries(client, **params) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(ORDERS, params)
    assert response.status_code == 200
    return len(captured)


@pytest.mark.slow(reason="100 orders placed through the services, then two pages read")
def test_a_page_of_100_costs_no_more_queries_than_a_page_of_5(
    manager_client, django_assert_max_num_queries
):
    products = [stocked(title=f"P{n}", stock=1000) for n in range(3)]
    customers = [CustomerFactory() for _ in range(4)]
    for n in range(100):
        make_order(
            line(products[n % 3], 1 + n % 2),
            line(products[(n + 1) % 3]),
            customer=customers[n % 4] if n % 5 else None,
        )
    small = _queries(manager_client, per_page=5)
    with django_assert_max_num_queries(small):
        response = manager_client.get(ORDERS, {"per_page": 100})
    assert len(response.json()["orders"]) == 100
    filtered = {"status": "pending", "search": "P1", "date_from": "2000-01-01"}
    small = _queries(manager_client, per_page=5, **filtered)
    with django_assert_max_num_queries(small):
        manager_client.get(ORDERS, {"per_page": 100, **filtered})


def test_the_list_costs_a_fixed_handful_of_queries(manager_client, django_assert_max_num_queries):
    for _ in range(30):
        make_order(customer=CustomerFactory())
    manager_client.get(ORDERS)  # the capability lookups of the account are cached per request
    # app password + its user, permissions (2), count, page
    with django_assert_max_num_queries(7):
        manager_client.get(ORDERS, {"per_page": 100})


def test_a_full_order_read_does_not_grow_with_its_lines(
    manager_client, django_assert_max_num_queries
):
    def order_with(lines: int):
        products = [stocked(title=f"L{lines}-{n}") for n in range(lines)]
        order = make_order(*[line(p) for p in products])
        for _ in range(lines):
            services.payment_create(order_id=order.pk, fields={"amount": "1.00"})
        for item in order.items.all():
            services.shipment_create(
                order_id=order.pk, fields={"items": [{"order_item_id": item.pk, "quantity": 1}]}
            )
        return order

    small, big = order_with(1), order_with(15)
    manager_client.get(f"{ORDERS}/{small.pk}")
    with CaptureQueriesContext(connection) as captured:
        manager_client.get(f"{ORDERS}/{small.pk}")
    with django_assert_max_num_queries(len(captured)):
        body = manager_client.get(f"{ORDERS}/{big.pk}").json()
    assert (len(body["items"]), len(body["payments"]), len(body["shipments"])) == (15, 15, 15)


def test_my_orders_list_is_bounded_too(store_client, django_assert_max_num_queries):
    from store.customers import services as customer_services
    from tests.accounts.factories import UserFactory

    user = UserFactory()
    me = customer_services.customer_for_user(user=user)
    client = store_client(user)
    for _ in range(5):
        make_order(customer=me)
    with CaptureQueriesContext(connection) as captured:
        client.get(f"{API}/account/orders", {"per_page": 5})
    for _ in range(60):
        make_order(customer=me)
    with django_assert_max_num_queries(len(captured)):
        body = client.get(f"{API}/account/orders", {"per_page": 100}).json()
    assert len(body["orders"]) == 65


# --- PostgreSQL writes the entries (common.pg_json): the same answer as the Python rows -------


@pytest.mark.postgresql_only  # the JSON path is PostgreSQL's
def test_postgresql_entries_are_the_python_rows_entries(manager_client, customer):
    from store.orders import selectors
    from store.orders.api import serializers as s
    from store.orders.models import Order

    lamp = stocked(price="10.00")
    with at("2026-03-01T10:00:00"):  # no fraction of a second: written without one
        whole = make_order(line(lamp, 1), customer=None)
    odd = CustomerFactory(
        email="zoe@example.com", first_name='Zoë "Z" \\ Ω', last_name="\u2028line", user=customer
    )
    with at("2026-03-02T10:00:00.000120"):
        fraction = make_order(line(lamp, 3), customer=odd, shipping_total="0.10")
    Order.objects.filter(pk=whole.pk).update(customer=None)

    body = manager_client.get(ORDERS, {"orderby": "id", "order": "asc"}).json()
    rows = Order.objects.order_by("id").values_list(*selectors.LIST_COLUMNS)
    assert body["orders"] == [s.order_summary_row(row) for row in rows]
    assert [o["id"] for o in body["orders"]] == [whole.pk, fraction.pk]
    assert body["orders"][0]["customer"] is None
    assert body["orders"][0]["created_at"] == "2026-03-01T10:00:00Z"
    assert body["orders"][1]["created_at"] == "2026-03-02T10:00:00.000120Z"
    assert body["orders"][1]["total"] == "30.10"
    # deep pages read their rows by id, through the same entries
    deep = selectors.order_page({"page": 1, "per_page": 2, "orderby": "id", "order": "ASC"})
    assert [row[0] for row in deep.items] == [
        e[0] for e in Order.objects.order_by("id").values_list(selectors.list_entry_json())
    ]
