"""The ERP's inventory routes: warehouses, levels, adjust, transfer, stocktake, movements,
stats — behind the licence gate, over the store's one ledger."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from store.catalog.models import Product
from store.inventory import services
from store.inventory.choices import MovementReason
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services import Reference, StockLine
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, error, grant
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db


def tracked(title="Lamp", stock=0, **fields) -> Product:
    return make_product(title=title, track_inventory=True, stock_quantity=stock, **fields)


def depot(code="depot", **fields) -> Warehouse:
    return services.warehouse_create(fields={"name": code.title(), "code": code, **fields})


def receive(warehouse, product, quantity, cost) -> None:
    services.stock_add_at_cost(
        warehouse_id=warehouse.pk,
        lines=[StockLine(product.pk, None, quantity, Decimal(cost))],
        reference=Reference(type="purchase_order", id="1"),
        key_prefix=f"po:{StockMovement.objects.count()}",
    )


@pytest.fixture
def api(manager_client, erp_on):
    """A shop manager (ec_manage_inventory) with the ERP on."""
    return manager_client


def post(client, path, body, **headers):
    return client.post(f"{API}{path}", body, format="json", **headers)


# --- The gate and access -------------------------------------------------------------------------


def test_403_without_the_erp(manager_client, business_licence):
    error(manager_client.get(f"{API}/warehouses"), 403, "erp_not_active")
    error(manager_client.get(f"{API}/stock/levels"), 403, "erp_not_active")


def test_the_inventory_capability_is_needed(store_client, erp_on, anon):
    clerk = grant(UserFactory(), "ec_manage_invoicing")
    error(store_client(clerk).get(f"{API}/stock/levels"), 403, "insufficient_capability")
    error(anon.get(f"{API}/stock/levels"), 401)
    keeper = grant(UserFactory(), "ec_manage_inventory")
    assert store_client(keeper).get(f"{API}/stock/levels").status_code == 200


# --- Warehouses ----------------------------------------------------------------------------------


def test_warehouse_crud(api):
    created = post(
        api, "/warehouses", {"name": "North depot", "city": "Thessaloniki", "country": "gr"}
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["code"], body["country"], body["is_default"], body["is_active"]) == (
        "north-depot",
        "GR",
        False,
        True,
    )
    assert body["stock"] == {"items": 0, "units": 0, "value": "0.00"}
    wid = body["id"]
    error(post(api, "/warehouses", {"name": "Again", "code": "north-depot"}), 400, "invalid_param")
    error(post(api, "/warehouses", {"code": "nameless"}), 400, "invalid_param")
    patched = api.patch(f"{API}/warehouses/{wid}", {"priority": 5}, format="json").json()
    assert (patched["priority"], patched["name"]) == (5, "North depot")
    assert api.put(f"{API}/warehouses/{wid}", {"name": "N"}, format="json").json()["name"] == "N"
    listed = api.get(f"{API}/warehouses").json()
    assert [w["code"] for w in listed["warehouses"]] == ["main", "north-depot"]
    assert listed["total"] == 2
    assert api.get(f"{API}/warehouses", {"search": "north"}).json()["total"] == 1
    assert api.get(f"{API}/warehouses/{wid}").json()["id"] == wid
    assert api.delete(f"{API}/warehouses/{wid}").status_code == 204
    error(api.get(f"{API}/warehouses/{wid}"), 404, "warehouse_not_found")


def test_a_warehouse_with_stock_or_history_is_not_deleted(api):
    lamp = tracked()
    other = depot()
    receive(other, lamp, 2, "1.00")
    error(api.delete(f"{API}/warehouses/{other.pk}"), 409, "warehouse_in_use")
    services.stock_adjust(product_id=lamp.pk, warehouse_id=other.pk, quantity=-2, reason="lost")
    error(api.delete(f"{API}/warehouses/{other.pk}"), 409, "warehouse_in_use")  # history
    main = services.default_warehouse()
    error(api.delete(f"{API}/warehouses/{main.pk}"), 400, "default_warehouse")
    assert Warehouse.objects.count() == 2


def test_set_default_activate_deactivate(api):
    lamp = tracked()
    other = depot()
    main = services.default_warehouse()
    receive(other, lamp, 3, "2.00")
    error(post(api, f"/warehouses/{other.pk}/deactivate", None), 409, "warehouse_has_stock")
    error(post(api, f"/warehouses/{main.pk}/deactivate", None), 400, "default_warehouse")
    body = post(api, f"/warehouses/{other.pk}/set-default", None).json()
    assert (body["is_default"], body["stock"]["value"]) == (True, "6.00")
    assert Warehouse.objects.get(pk=main.pk).is_default is False
    body = post(api, f"/warehouses/{main.pk}/deactivate", None).json()  # empty, not the default
    assert body["is_active"] is False
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 3
    error(post(api, f"/warehouses/{main.pk}/set-default", None), 400, "warehouse_inactive")
    assert post(api, f"/warehouses/{main.pk}/activate", None).json()["is_active"] is True
    error(post(api, "/warehouses/999999/activate", None), 404, "warehouse_not_found")


# --- Levels --------------------------------------------------------------------------------------


def test_levels_with_value_and_filters(api):
    lamp, mug = tracked(sku="LAMP-1"), tracked("Mug", sku="MUG-1")
    other = depot()
    main = services.default_warehouse()
    receive(main, lamp, 4, "2.50")
    receive(other, lamp, 1, "3.00")
    receive(main, mug, 2, "1.00")
    body = api.get(f"{API}/stock/levels").json()
    assert body["total"] == 3
    first = body["levels"][0]
    assert {k: first[k] for k in ("sku", "title", "quantity", "unit_cost", "value")} == {
        "sku": "LAMP-1",
        "title": "Lamp",
        "quantity": 4,
        "unit_cost": "2.5000",
        "value": "10.00",
    }
    assert api.get(f"{API}/stock/levels", {"warehouse_id": other.pk}).json()["total"] == 1
    assert api.get(f"{API}/stock/levels", {"product_id": lamp.pk}).json()["total"] == 2
    assert api.get(f"{API}/stock/levels", {"sku": "mug-1"}).json()["total"] == 1
    assert api.get(f"{API}/stock/levels", {"search": "lam"}).json()["total"] == 2
    level = StockLevel.objects.get(warehouse=main, product=mug)
    patched = api.patch(
        f"{API}/stock/levels/{level.pk}",
        {"reorder_point": 2, "reorder_quantity": 10},
        format="json",
    ).json()
    assert (patched["reorder_point"], patched["reorder_quantity"], patched["low_stock"]) == (
        2,
        10,
        True,
    )
    low = api.get(f"{API}/stock/levels", {"low_stock": "true"}).json()
    assert [row["id"] for row in low["levels"]] == [level.pk]
    assert api.get(f"{API}/stock/levels", {"low_stock": "false"}).json()["total"] == 2
    error(api.patch(f"{API}/stock/levels/{level.pk}", {"reorder_point": -1}, format="json"), 400)
    error(api.patch(f"{API}/stock/levels/{level.pk}", {"quantity": 99}, format="json"), 400)
    error(api.get(f"{API}/stock/levels/99999"), 404, "stock_level_not_found")
    assert StockLevel.objects.get(pk=level.pk).quantity == 2


def queries_of(api, path, params) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert api.get(f"{API}{path}", params).status_code == 200
    return len(captured)


LISTS = [
    ("/stock/levels", {"per_page": 100}),
    ("/stock/movements", {"per_page": 100}),
    ("/warehouses", {"per_page": 100}),
    ("/stock/stats", {}),
]


def test_the_lists_do_not_grow_in_queries(api, django_assert_max_num_queries):
    main, other = services.default_warehouse(), depot()

    def stock(count: int) -> None:
        for n in range(count):
            product = tracked(f"Item {Product.objects.count()}", stock=n + 1)
            receive(other, product, 1, "1.00")
            services.stock_reorder_set(
                level_id=StockLevel.objects.get(warehouse=main, product=product).pk,
                fields={"reorder_point": 50},
            )

    stock(2)
    few = {path: queries_of(api, path, params) for path, params in LISTS}
    stock(15)
    for path, params in LISTS:
        with django_assert_max_num_queries(few[path]):
            assert api.get(f"{API}{path}", params).status_code == 200
    assert max(few.values()) <= 12, few


# --- Adjust --------------------------------------------------------------------------------------


def test_adjust(api, manager):
    lamp = tracked(stock=5)
    response = post(
        api,
        "/stock/adjust",
        {
            "product_id": lamp.pk,
            "warehouse_id": 0,
            "quantity": -2,
            "reason": "damaged",
            "note": "x",
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["movement"]["quantity"], body["movement"]["reason"]) == (-2, "manual_adjustment")
    assert (body["movement"]["reference_type"], body["movement"]["reference_id"]) == (
        "adjustment",
        "damaged",
    )
    assert body["movement"]["actor"] == manager.email
    assert body["level"]["quantity"] == 3
    body = post(
        api,
        "/stock/adjust",
        {
            "product_id": lamp.pk,
            "warehouse_id": 0,
            "new_quantity": 7,
            "reason": "found",
            "unit_cost": "4.20",
        },
    ).json()
    assert (body["level"]["quantity"], body["level"]["unit_cost"]) == (7, "4.2000")
    assert body["movement"]["unit_cost"] == "4.2000"
    same = post(
        api,
        "/stock/adjust",
        {"product_id": lamp.pk, "warehouse_id": 0, "new_quantity": 7, "reason": "found"},
    ).json()
    assert same["movement"] is None
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 7


def test_adjust_refusals(api):
    lamp = tracked(stock=1)
    base = {"product_id": lamp.pk, "warehouse_id": 0, "quantity": -1}
    error(post(api, "/stock/adjust", base), 400, "invalid_param")  # no reason
    error(post(api, "/stock/adjust", {**base, "reason": "whim"}), 400, "invalid_param")
    error(
        post(api, "/stock/adjust", {**base, "reason": "lost", "quantity": -2}),
        409,
        "insufficient_stock",
    )
    error(post(api, "/stock/adjust", {**base, "reason": "lost", "quantity": 0}), 400)
    error(post(api, "/stock/adjust", {**base, "reason": "lost", "new_quantity": 1}), 400)
    error(
        post(api, "/stock/adjust", {**base, "reason": "lost", "product_id": 10**9}),
        404,
        "product_not_found",
    )
    error(
        post(api, "/stock/adjust", {**base, "reason": "lost", "warehouse_id": 10**9}),
        404,
        "warehouse_not_found",
    )
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 1
    assert StockMovement.objects.count() == 1


def test_adjust_is_idempotent_with_a_key(api):
    lamp = tracked(stock=5)
    body = {"product_id": lamp.pk, "warehouse_id": 0, "quantity": 1, "reason": "found"}
    first = post(api, "/stock/adjust", body, HTTP_IDEMPOTENCY_KEY="adj-1")
    again = post(api, "/stock/adjust", body, HTTP_IDEMPOTENCY_KEY="adj-1")
    assert first.json() == again.json()
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 6
    assert StockMovement.objects.filter(reason=MovementReason.MANUAL_ADJUSTMENT).count() == 2


# --- Transfer ------------------------------------------------------------------------------------


def test_transfer(api):
    lamp, mug = tracked(), tracked("Mug")
    main, other = services.default_warehouse(), depot()
    receive(main, lamp, 6, "2.00")
    receive(main, mug, 3, "1.00")
    response = post(
        api,
        "/stock/transfer",
        {
            "from_warehouse_id": 0,
            "to_warehouse_id": other.pk,
            "lines": [
                {"product_id": lamp.pk, "quantity": 4},
                {"product_id": mug.pk, "quantity": 3},
            ],
            "note": "to the north",
        },
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert [(m["reason"], m["quantity"], m["unit_cost"]) for m in body["movements"]] == [
        ("transfer_out", -4, "2.0000"),
        ("transfer_out", -3, "1.0000"),
        ("transfer_in", 4, "2.0000"),
        ("transfer_in", 3, "1.0000"),
    ]
    moved = api.get(
        f"{API}/stock/movements", {"reference_type": "transfer", "reference_id": body["reference"]}
    ).json()
    assert moved["total"] == 4
    levels = api.get(f"{API}/stock/levels", {"warehouse_id": other.pk}).json()["levels"]
    assert [(row["quantity"], row["unit_cost"]) for row in levels] == [(4, "2.0000"), (3, "1.0000")]


def test_a_transfer_is_all_or_nothing(api):
    lamp, mug = tracked(stock=5), tracked("Mug", stock=1)
    other = depot()
    response = post(
        api,
        "/stock/transfer",
        {
            "from_warehouse_id": 0,
            "to_warehouse_id": other.pk,
            "lines": [
                {"product_id": lamp.pk, "quantity": 5},
                {"product_id": mug.pk, "quantity": 2},
            ],
        },
    )
    body = error(response, 409, "insufficient_stock")
    assert set(body["data"]["params"]) == {"lines.1.quantity"}
    assert not StockLevel.objects.filter(warehouse=other).exists()
    assert StockMovement.objects.filter(reason__startswith="transfer").count() == 0


def test_transfer_refusals(api):
    lamp = tracked(stock=5)
    other, closed = depot(), depot("closed")
    services.warehouse_set_active(warehouse_id=closed.pk, active=False)
    line = [{"product_id": lamp.pk, "quantity": 1}]
    error(
        post(api, "/stock/transfer", {"from_warehouse_id": 0, "to_warehouse_id": 0, "lines": line}),
        400,
    )
    error(
        post(
            api,
            "/stock/transfer",
            {"from_warehouse_id": 0, "to_warehouse_id": closed.pk, "lines": line},
        ),
        409,
        "warehouse_inactive",
    )
    error(
        post(
            api,
            "/stock/transfer",
            {"from_warehouse_id": 0, "to_warehouse_id": other.pk, "lines": []},
        ),
        400,
    )
    error(
        post(
            api,
            "/stock/transfer",
            {
                "from_warehouse_id": 0,
                "to_warehouse_id": other.pk,
                "lines": [{"product_id": lamp.pk, "quantity": 0}],
            },
        ),
        400,
    )
    error(
        post(
            api,
            "/stock/transfer",
            {"from_warehouse_id": 0, "to_warehouse_id": other.pk, "lines": {"product_id": 1}},
        ),
        422,
        "invalid_shape",
    )
    error(
        post(
            api,
            "/stock/transfer",
            {
                "from_warehouse_id": 0,
                "to_warehouse_id": other.pk,
                "lines": [{"product_id": 10**9, "quantity": 1}],
            },
        ),
        404,
        "product_not_found",
    )
    assert StockMovement.objects.filter(reason__startswith="transfer").count() == 0


# --- Stocktake -----------------------------------------------------------------------------------


def test_stocktake(api):
    lamp, mug, vase = tracked(stock=5), tracked("Mug", stock=3), tracked("Vase", stock=9)
    main = services.default_warehouse()
    receive(main, lamp, 5, "2.00")  # 10 at 2.00
    response = post(
        api,
        "/stock/stocktake",
        {
            "warehouse_id": 0,
            "counts": [
                {"product_id": lamp.pk, "quantity": 8},
                {"product_id": mug.pk, "quantity": 3},
            ],
        },
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["counted"], body["changed"]) == (2, 1)
    assert body["lines"][0] | {"movement_id": None} == {
        "product_id": lamp.pk,
        "variant_id": None,
        "sku": lamp.sku,
        "expected": 10,
        "counted": 8,
        "difference": -2,
        "unit_cost": "2.0000",
        "value_difference": "-4.00",
        "movement_id": None,
    }
    assert body["lines"][1]["movement_id"] is None
    vase.refresh_from_db()
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, vase.stock_quantity) == (8, 9)
    error(
        post(
            api,
            "/stock/stocktake",
            {"warehouse_id": 0, "counts": [{"product_id": lamp.pk, "quantity": 1}] * 2},
        ),
        400,
    )
    error(post(api, "/stock/stocktake", {"warehouse_id": 0, "counts": []}), 400)


# --- Movements and stats -------------------------------------------------------------------------


def test_movements_filters(api):
    lamp, mug = tracked(stock=5), tracked("Mug", stock=2)
    other = depot()
    services.stock_transfer(
        from_warehouse_id=0, to_warehouse_id=other.pk, lines=[StockLine(lamp.pk, None, 2)]
    )
    body = api.get(f"{API}/stock/movements").json()
    assert body["total"] == 4
    assert [m["id"] for m in body["movements"]] == sorted(
        (m["id"] for m in body["movements"]), reverse=True
    )
    assert api.get(f"{API}/stock/movements", {"product_id": mug.pk}).json()["total"] == 1
    assert api.get(f"{API}/stock/movements", {"warehouse_id": other.pk}).json()["total"] == 1
    assert (
        api.get(f"{API}/stock/movements", {"reason": "transfer_in,transfer_out"}).json()["total"]
        == 2
    )
    today = timezone.now().date()
    assert api.get(f"{API}/stock/movements", {"date_from": str(today)}).json()["total"] == 4
    assert (
        api.get(f"{API}/stock/movements", {"date_to": str(today - timedelta(days=1))}).json()[
            "total"
        ]
        == 0
    )
    error(api.get(f"{API}/stock/movements", {"reason": "nonsense"}), 400)
    error(
        api.get(
            f"{API}/stock/movements",
            {"date_from": str(today), "date_to": str(today - timedelta(days=1))},
        ),
        400,
    )
    assert api.get(f"{API}/stock/movements", {"per_page": 1, "page": 2}).json()["per_page"] == 1


def test_stats(api):
    lamp, mug = tracked(), tracked("Mug")
    main, other = services.default_warehouse(), depot()
    receive(main, lamp, 10, "2.00")
    receive(other, mug, 4, "1.50")
    services.stock_take(
        needs=[services.Need(1, lamp.pk, None, 4)],
        reason=MovementReason.ORDER_PLACED,
        reference=Reference(type="order", id="7"),
        key_prefix="order:7",
    )
    level = StockLevel.objects.get(product=mug)
    services.stock_reorder_set(level_id=level.pk, fields={"reorder_point": 5})
    body = api.get(f"{API}/stock/stats").json()
    assert body["total_value"] == "18.00"
    assert [(w["code"], w["value"], w["units"]) for w in body["warehouses"]] == [
        ("main", "12.00", 6),
        ("depot", "6.00", 4),
    ]
    assert (body["low_stock_count"], body["out_of_stock_count"]) == (1, 0)
    assert [row["id"] for row in body["low_stock_items"]] == [level.pk]
    turnover = body["turnover"]
    # opening 0, closing 10: average 5; 4 sold
    assert (turnover["units_sold"], turnover["opening_stock"], turnover["closing_stock"]) == (
        4,
        0,
        10,
    )
    assert (turnover["average_stock"], turnover["turnover"]) == ("5", "0.80")
    assert turnover["date_to"] == str(timezone.now().date())
    one = api.get(f"{API}/stock/stats", {"warehouse_id": other.pk}).json()
    assert (one["total_value"], one["turnover"]["units_sold"]) == ("6.00", 0)
    past = api.get(
        f"{API}/stock/stats", {"date_to": str(timezone.now().date() - timedelta(days=40))}
    ).json()
    assert past["turnover"]["turnover"] is None
    error(api.get(f"{API}/stock/stats", {"date_from": "2025-02-01", "date_to": "2025-01-01"}), 400)


# --- Hostile input and browsers ------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"product_id": "1\x00", "warehouse_id": 0, "quantity": 1, "reason": "lost"},
        {"product_id": 1, "warehouse_id": 0, "quantity": 10**40, "reason": "lost"},
        {"product_id": 1, "warehouse_id": 0, "quantity": 1, "reason": "lost", "note": "a\x00"},
        {"product_id": [1], "warehouse_id": 0, "quantity": 1.5, "reason": ["lost"]},
        {"product_id": 1, "warehouse_id": -1, "quantity": True, "reason": "lost"},
        {"product_id": 1, "warehouse_id": 0, "quantity": 1, "reason": "lost", "unit_cost": "NaN"},
    ],
)
def test_hostile_adjust_bodies_are_400(api, body):
    error(post(api, "/stock/adjust", body), 400)


@pytest.mark.parametrize(
    "raw",
    [
        '{"product_id": 1, "warehouse_id": 0, "quantity": 1, "reason": "lost", "note": "\\ud800"}',
        '{"product_id": 1, "warehouse_id": 0, "quantity": 1, "reason": "lost\\u0000"}',
        '{"product_id": 1, ' * 3000,
        "[" * 5000,
    ],
)
def test_hostile_raw_bodies_are_400(api, raw):
    response = api.generic("POST", f"{API}/stock/adjust", raw, content_type="application/json")
    error(response, 400)


def test_hostile_transfer_and_stocktake_bodies(api):
    deep = {"a": 1}
    for _ in range(200):
        deep = {"a": deep}
    for path in ("/stock/transfer", "/stock/stocktake"):
        for body in (
            [1, 2],
            "text",
            {"lines": deep, "counts": deep},
            {"lines": [[1]], "counts": [[1]]},
        ):
            response = post(api, path, body)
            assert response.status_code in (400, 422), (path, body, response.content)
            error(response, response.status_code)
    huge = {
        "from_warehouse_id": 0,
        "to_warehouse_id": 2,
        "lines": [{"product_id": 1, "quantity": 1}] * 501,
    }
    error(post(api, "/stock/transfer", huge), 400)
    error(api.get(f"{API}/stock/levels", {"warehouse_id": "1\x00"}), 400)
    assert api.get(f"{API}/stock/levels", {"per_page": 10**30}).json()["per_page"] == 100
    error(api.get(f"{API}/stock/movements", {"reference_id": "x" * 65}), 400)
    assert api.get(f"{API}/warehouses/99999999999999999999999").status_code == 404


def test_unsafe_methods_answer_json_with_csrf_checks_on(manager, erp_on):
    lamp = tracked(stock=3)
    browser = Client(enforce_csrf_checks=True)
    body = json.dumps({"product_id": lamp.pk, "warehouse_id": 0, "quantity": 1, "reason": "found"})
    response = browser.post(
        f"{API}/stock/adjust",
        body,
        content_type="application/json",
        HTTP_AUTHORIZATION=basic_auth(manager),
    )
    assert response.status_code == 200, response.content
    browser.force_login(manager)
    response = browser.post(f"{API}/stock/adjust", body, content_type="application/json")
    assert response.status_code in (401, 403)
    assert response["Content-Type"] == "application/json"
    nonce = browser.get(f"{API}/auth/nonce").json()["nonce"]
    response = browser.post(
        f"{API}/stock/adjust", body, content_type="application/json", HTTP_X_PLATFORM_NONCE=nonce
    )
    assert response.status_code == 200, response.content
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 5
