"""GET /stock/levels pages: numbered pages and keyset pages (`after`) walk the same levels in
the same order (warehouse, product, its variants' levels then its own, id), filters included,
in the same number of queries whatever the number of levels."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.catalog.models import Variant
from store.inventory import services
from store.inventory.models import StockLevel, Warehouse
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(manager_client, erp_on):
    return manager_client


def stock(count: int, *, start: int = 0) -> None:
    """`count` products, each in the default warehouse; every third one in a depot too, and
    every fourth one with two variants (levels of the product and of each variant)."""
    default = services.default_warehouse()
    depot, _ = Warehouse.objects.get_or_create(
        code="depot", defaults={"name": "Depot", "priority": 3}
    )
    for n in range(start, start + count):
        product = make_product(title=f"Item {n}", sku=f"ITEM-{n}")
        warehouses = [default, depot] if n % 3 == 0 else [default]
        variants = [
            Variant.objects.create(product=product, sku=f"ITEM-{n}-{k}", title=f"V{k}")
            for k in range(2 if n % 4 == 0 else 0)
        ]
        for warehouse in warehouses:
            for variant in [None, *variants]:
                StockLevel.objects.update_or_create(
                    warehouse=warehouse,
                    product=product,
                    variant=variant,
                    defaults={"quantity": n % 5, "reorder_point": 2 if n % 2 else None},
                )


def ids(body: dict) -> list[int]:
    return [row["id"] for row in body["levels"]]


def expected(**filters) -> list[int]:
    """Every level in the list's order, sorted in Python."""
    rows = StockLevel.objects.filter(**filters).values_list(
        "warehouse_id", "product_id", "variant_id", "id"
    )
    return [
        row[3] for row in sorted(rows, key=lambda r: (r[0], r[1], r[2] is None, r[2] or 0, r[3]))
    ]


def walk(api, params: dict, per_page: int) -> tuple[list[int], list[int]]:
    """(every id by numbered pages, every id by `after` pages)."""
    numbered, page = [], 1
    while True:
        body = api.get(f"{API}/stock/levels", {**params, "per_page": per_page, "page": page})
        assert body.status_code == 200, body.content
        if not body.json()["levels"]:
            break
        numbered += ids(body.json())
        page += 1
    keyset, after = [], None
    while True:
        query = {**params, "per_page": per_page, **({"after": after} if after else {})}
        body = api.get(f"{API}/stock/levels", query).json()
        assert body["total"] == len(numbered)
        if not body["levels"]:
            break
        keyset += ids(body)
        after = keyset[-1]
    return numbered, keyset


@pytest.mark.parametrize(
    "params",
    [{}, {"warehouse_id": "depot"}, {"low_stock": "true"}, {"search": "item"}, {"sku": "ITEM-4"}],
)
def test_keyset_pages_walk_the_numbered_pages(api, params):
    stock(13)
    if params.get("warehouse_id") == "depot":
        params = {"warehouse_id": Warehouse.objects.get(code="depot").pk}
    numbered, keyset = walk(api, params, per_page=4)
    assert keyset == numbered
    assert len(set(numbered)) == len(numbered)
    filters = {"warehouse_id": params["warehouse_id"]} if "warehouse_id" in params else {}
    if not set(params) - {"warehouse_id"}:
        assert numbered == [pk for pk in expected(**filters) if pk in numbered]
        assert sorted(numbered) == sorted(
            StockLevel.objects.filter(**filters).values_list("pk", flat=True)
        )


def test_an_unknown_after_is_refused(api):
    stock(1)
    error(api.get(f"{API}/stock/levels", {"after": 10**9}), 400, "invalid_param")
    error(api.get(f"{API}/stock/levels", {"after": "x"}), 400, "invalid_param")


@pytest.mark.parametrize("params", [{}, {"page": 2}, {"after": "first"}, {"search": "item 1"}])
def test_a_page_costs_the_same_queries_at_any_size(api, params):
    stock(6)

    def query() -> dict:
        if params.get("after") == "first":
            return {"per_page": 3, "after": StockLevel.objects.order_by("pk").first().pk}
        return {"per_page": 3, **params}

    def measured() -> int:
        wanted = query()
        api.get(f"{API}/stock/levels", wanted)  # caches warm (credentials, the gate)
        with CaptureQueriesContext(connection) as captured:
            body = api.get(f"{API}/stock/levels", wanted).json()
        assert len(body["levels"]) == 3
        return len(captured)

    few = measured()
    stock(30, start=6)
    assert measured() <= few <= 6
