"""The ERP's inventory while Redis (the cache and the broker) is stopped or frozen: transfers,
adjustments and the ledger's reads answer quickly from the database, and the catalog's stock
fields stay right (the cache's invalidation is best effort)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from erp.core import services as erp_services
from store.inventory import services
from store.inventory.models import StockLevel
from tests.accounts.factories import UserFactory
from tests.erp.conftest import store_licence
from tests.fixtures.store import API, basic_auth
from tests.outages.conftest import timed
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.0  # as tests/outages/test_cache_outage.py


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_stock_moves_while_redis_is_out(redis_broker, kind):
    admin = UserFactory(is_superuser=True, is_staff=True)
    erp_services.erp_activate(license_key=store_licence().license_key)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(admin))
    lamp = make_product(title="Lamp", track_inventory=True, stock_quantity=6)
    depot = services.warehouse_create(fields={"name": "Depot", "code": "depot"})
    assert client.get(f"{API}/stock/levels").status_code == 200  # the gate's verdict cached

    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed:
        moved = client.post(
            f"{API}/stock/transfer",
            {
                "from_warehouse_id": 0,
                "to_warehouse_id": depot.pk,
                "lines": [{"product_id": lamp.pk, "quantity": 4}],
            },
            format="json",
        )
    assert (moved.status_code, elapsed() < REQUEST_BOUND) == (201, True), moved.content
    with timed() as elapsed:
        adjusted = client.post(
            f"{API}/stock/adjust",
            {"product_id": lamp.pk, "warehouse_id": 0, "quantity": -1, "reason": "damaged"},
            format="json",
        )
    assert (adjusted.status_code, elapsed() < REQUEST_BOUND) == (200, True), adjusted.content
    with timed() as elapsed:
        levels = client.get(f"{API}/stock/levels", {"product_id": lamp.pk})
    assert (levels.status_code, elapsed() < REQUEST_BOUND) == (200, True)
    assert sorted(row["quantity"] for row in levels.json()["levels"]) == [1, 4]
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 5
    assert sum(StockLevel.objects.filter(product=lamp).values_list("quantity", flat=True)) == 5
