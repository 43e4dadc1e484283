"""The customer lists cost the same queries for 3 customers as for 30: measured once for the
module, for each listing, with busy customers (two addresses, two orders, half with a login)."""

import pytest

from store.customers.models import CustomerAddress
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, api_as, shop_manager, warm_queries
from tests.fixtures.tasks import eager_tasks
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

# The credentials (2 queries), the COUNT, the page's rows (with their order stats on
# /customers-with-stats) and their default addresses.
LISTINGS = {
    "customers": ("/customers", {"per_page": 100}),
    "customers-searched": (
        "/customers",
        {"search": "customer", "has_orders": "true", "per_page": 100},
    ),
    "with-stats": ("/customers-with-stats", {"per_page": 100}),
    "with-stats-by-spent": ("/customers-with-stats", {"orderby": "total_spent", "per_page": 100}),
}
CEILING = 5


def _customers(count: int, tag: str) -> None:
    product = stocked(title=tag, stock=10_000)
    for n in range(count):
        customer = CustomerFactory(user=UserFactory() if n % 2 else None)
        for kind in ("billing", "shipping"):
            CustomerAddress.objects.create(
                customer=customer, type=kind, is_default=True, address={"city": f"{tag}{n}"}
            )
        for status in ("processing", "pending"):
            make_order(line(product), customer=customer, status=status)


@pytest.fixture(scope="module")
def costs(module_db):
    """{listing: (queries with 3 customers, queries with 30, the total listed with 30)}."""
    client = api_as(shop_manager("lister@example.com"))
    with eager_tasks():
        _customers(3, "few")
        few = {name: warm_queries(client, API + path, p) for name, (path, p) in LISTINGS.items()}
        _customers(27, "many")
        many = {name: warm_queries(client, API + path, p) for name, (path, p) in LISTINGS.items()}
        totals = {
            name: client.get(API + path, p).json()["total"] for name, (path, p) in LISTINGS.items()
        }
    return {name: (few[name], many[name], totals[name]) for name in LISTINGS}


@pytest.mark.parametrize("listing", LISTINGS)
def test_the_lists_cost_the_same_for_3_customers_as_for_30(costs, listing):
    few, many, total = costs[listing]
    assert few <= CEILING
    assert many == few
    assert total == 30
