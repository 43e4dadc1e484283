"""The orders' billing and shipping addresses follow the store's one address rule through the
HTTP API (tests/store/common/address_rule.py): `region` answered, `state` taken for it, a
conflict, a bad subdivision, an unknown key or country refused naming it, nothing stored."""

from __future__ import annotations

import pytest

from tests.fixtures.store import API
from tests.store.common.address_rule import Route, check_route
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"


def test_an_orders_billing_address_at_creation(manager_client):
    lamp = stocked(title="Lamp", stock=100)
    check_route(
        Route(
            "POST /orders",
            send=lambda address: manager_client.post(
                ORDERS, {"billing_address": address, "items": [line(lamp)]}, format="json"
            ),
            answered=lambda response: response.json()["billing_address"],
            prefix="billing_address.",
        )
    )


def test_an_orders_shipping_address_on_update(manager_client):
    order = make_order(line(stocked(title="Lamp")))
    url = f"{ORDERS}/{order.pk}"
    check_route(
        Route(
            "PATCH /orders/{id}",
            send=lambda address: manager_client.patch(url, {"shipping": address}, format="json"),
            answered=lambda response: response.json()["shipping_address"],
            prefix="shipping_address.",
        )
    )
    body = manager_client.get(url).json()
    assert body["shipping_address"]["region"] == "M"
    assert "state" not in body["shipping_address"]
    order.refresh_from_db()
    assert order.shipping_address["state"] == "M"  # stored under the value's own key
