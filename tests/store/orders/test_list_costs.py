"""The staff list of orders costs the same queries whatever its page holds: measured once for
the module with 3 busy orders and again with 50, for each kind of listing."""

import pytest

from store.orders import services
from tests.fixtures.store import API, api_as, shop_manager, warm_queries
from tests.fixtures.tasks import eager_tasks
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"
LISTINGS = {
    "default": {},
    "by-total": {"orderby": "total", "order": "asc"},
    "filtered": {"status": "pending", "search": "kim"},
}


def _busy_orders(count: int, tag: str) -> None:
    """`count` orders, each with two lines, a payment and a shipment, most with a customer."""
    products = [stocked(title=f"{tag} {n}", stock=10_000) for n in range(3)]
    for n in range(count):
        order = make_order(
            line(products[n % 3], 1 + n % 2),
            line(products[(n + 1) % 3]),
            customer=CustomerFactory() if n % 4 else None,
            billing_address={"email": f"{tag}{n}@example.com", "first_name": "Kim"},
        )
        services.payment_create(order_id=order.pk, fields={"amount": "1.00"})
        item = order.items.first()
        services.shipment_create(
            order_id=order.pk, fields={"items": [{"order_item_id": item.pk, "quantity": 1}]}
        )


def _count(client, **params) -> int:
    return warm_queries(client, ORDERS, {"per_page": 100, **params})


@pytest.fixture(scope="module")
def costs(module_db):
    """{listing: (queries with 3 orders, queries with 50)}, and the orders a page of 100 lists."""
    client = api_as(shop_manager("lister@example.com"))
    with eager_tasks():
        _busy_orders(3, "few")
        client.get(ORDERS)  # the account's capability lookups are cached
        few = {name: _count(client, **params) for name, params in LISTINGS.items()}
        _busy_orders(47, "many")
        many = {name: _count(client, **params) for name, params in LISTINGS.items()}
        listed = len(client.get(ORDERS, {"per_page": 100}).json()["orders"])
    return {name: (few[name], many[name]) for name in LISTINGS}, listed


@pytest.mark.parametrize("listing", LISTINGS)
def test_the_list_costs_the_same_for_3_orders_as_for_50(costs, listing):
    by_listing, listed = costs
    few, many = by_listing[listing]
    assert many <= few, (few, many)
    assert listed == 50
