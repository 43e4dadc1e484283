"""Stock hoarding, the checkout's part (issue 10, point 5): starting a checkout is rate limited
per client address; a guest's checkout (and so an unpaid guest order) holds at most
`checkout.guest_order_max_units` units, and no line above `cart.max_quantity`, both refused
before anything is held; an unpaid bank-transfer order holds its stock 24 hours by default
(`payments.bank_transfer_hold_hours`, migrated from `bank_transfer_hold_days`)."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps
from django.core.cache import cache
from django.test import Client

from store.checkout.models import Checkout
from store.inventory.models import StockMovement
from store.orders.models import Order
from store.settings import selectors as store_settings
from store.settings import services as settings_services
from store.settings.models import SettingsSection
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, error
from tests.store.catalog.factories import make_product
from tests.store.checkout.helpers import CHECKOUT, details

pytestmark = pytest.mark.django_db

MIGRATION = importlib.import_module("store.payments.migrations.0002_bank_transfer_hold_hours")


def post(client: Client, path: str, body=None, **extra):
    data = json.dumps(body) if body is not None else None
    return client.post(path, data=data, content_type="application/json", **extra)


def fill(client: Client, product, quantity: int) -> None:
    response = post(client, f"{API}/cart/items", {"product_id": product.pk, "quantity": quantity})
    assert response.status_code == 200, response.content


def limit(settings, **rates) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


@pytest.fixture
def stocked(shop):
    """Two products with 500 units each in stock (tracked: a checkout holds them), in the shop
    of the checkout tests (its shipping zone and VAT)."""
    return (
        make_product(title="Lamp", sku="L", regular_price="20.00", stock_quantity=500),
        make_product(title="Desk", sku="D", regular_price="90.00", stock_quantity=500),
    )


def stock(product) -> int:
    product.refresh_from_db()
    return product.stock_quantity


def guest() -> Client:
    return Client(enforce_csrf_checks=True)


# --- Starting a checkout is rate limited ------------------------------------------------------


def test_starting_a_checkout_is_rate_limited_per_address(shop, settings):
    limit(settings, checkout_start="2/hour")
    first, second, third = guest(), guest(), guest()
    for client in (first, second, third):
        fill(client, shop.lamp, 1)
    assert post(first, CHECKOUT, details()).status_code == 201
    assert post(second, CHECKOUT, details()).status_code == 201
    response = post(third, CHECKOUT, details())
    error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 60  # an hour's window
    assert Checkout.objects.count() == 2
    assert shop.stock() == 3  # the refused one held nothing
    # Reading is not limited; another address may start.
    assert first.get(CHECKOUT).status_code == 200
    assert post(third, CHECKOUT, details(), REMOTE_ADDR="10.9.9.9").status_code == 201


def test_checkout_updates_and_validation_are_cart_writes(shop, settings):
    limit(settings, cart_write="3/min")
    client = guest()
    fill(client, shop.lamp, 1)  # 1
    checkout = post(client, CHECKOUT, details()).json()  # its own limit
    path = f"{CHECKOUT}/{checkout['id']}"
    assert client.patch(path, '{"customer_note": "a"}', "application/json").status_code == 200
    assert post(client, f"{path}/validate").status_code == 200  # 3
    error(client.patch(path, '{"customer_note": "b"}', "application/json"), 429, "throttled")
    assert Checkout.objects.get().customer_note == "a"
    assert client.get(path).status_code == 200


# --- Units of a guest's order -----------------------------------------------------------------


def test_a_guest_order_holds_at_most_100_units(stocked):
    lamp, desk = stocked
    client = guest()
    fill(client, lamp, 60)
    fill(client, desk, 41)
    body = error(post(client, CHECKOUT, details()), 400, "guest_order_quantity_limit")
    assert "at most 100 units" in body["message"]
    assert "items" in body["data"]["params"]
    assert not Checkout.objects.exists()
    assert (stock(lamp), stock(desk)) == (500, 500)
    assert not StockMovement.objects.filter(reason="checkout_hold").exists()

    item = client.get(f"{API}/cart").json()["cart"]["items"][1]["id"]
    lower = client.patch(f"{API}/cart/items/{item}", '{"quantity": 40}', "application/json")
    assert lower.status_code == 200
    assert post(client, CHECKOUT, details()).status_code == 201
    assert (stock(lamp), stock(desk)) == (440, 460)


def test_an_account_with_a_verified_address_is_not_limited(stocked):
    lamp, desk = stocked
    client = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(UserFactory())})
    fill(client, lamp, 100)
    fill(client, desk, 100)
    assert post(client, CHECKOUT, details()).status_code == 201
    assert (stock(lamp), stock(desk)) == (400, 400)


def test_an_unverified_account_counts_as_a_guest(stocked):
    """Accounts are made at the checkout in one request: they do not lift the limit until
    their address is verified."""
    lamp, desk = stocked
    user = UserFactory(email_verified=False)
    client = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(user)})
    fill(client, lamp, 100)
    fill(client, desk, 1)
    error(post(client, CHECKOUT, details()), 400, "guest_order_quantity_limit")
    assert stock(lamp) == 500


def test_the_guest_limit_is_a_setting(stocked):
    settings_services.settings_update(section="checkout", values={"guest_order_max_units": 150})
    lamp, desk = stocked
    client = guest()
    fill(client, lamp, 100)
    fill(client, desk, 50)
    assert post(client, CHECKOUT, details()).status_code == 201


def test_validate_reports_the_limit_and_holds_nothing_more(stocked):
    lamp, desk = stocked
    client = guest()
    fill(client, lamp, 50)
    checkout = post(client, CHECKOUT, details()).json()
    assert stock(lamp) == 450
    fill(client, desk, 60)  # the cart allows it; the checkout does not
    answer = post(client, f"{CHECKOUT}/{checkout['id']}/validate").json()
    assert answer["valid"] is False
    assert [p["code"] for p in answer["problems"]] == ["guest_order_quantity_limit"]
    assert (stock(lamp), stock(desk)) == (450, 500)  # the desks were not held


def test_complete_refuses_a_cart_grown_past_the_limit(stocked):
    lamp, desk = stocked
    client = guest()
    fill(client, lamp, 50)
    checkout = post(client, CHECKOUT, details(payment_method="bank_transfer")).json()
    fill(client, desk, 60)
    response = post(client, f"{CHECKOUT}/{checkout['id']}/complete", {})
    error(response, 400, "guest_order_quantity_limit")
    assert not Order.objects.exists()
    assert (stock(lamp), stock(desk)) == (450, 500)


def test_a_line_over_the_per_item_limit_is_refused_before_holding(stocked):
    lamp, _desk = stocked
    client = guest()
    fill(client, lamp, 80)
    settings_services.settings_update(section="cart", values={"max_quantity": 50})
    body = error(post(client, CHECKOUT, details()), 400, "cart_item_quantity_limit")
    item = client.get(f"{API}/cart").json()["cart"]["items"][0]["id"]
    assert list(body["data"]["params"]) == [f"items.{item}.quantity"]
    assert stock(lamp) == 500
    assert not Checkout.objects.exists()


# --- The bank-transfer hold: 24 hours, migrated from days ------------------------------------


def stored_payments(values: dict) -> None:
    SettingsSection.objects.update_or_create(name="payments", defaults={"values": values})
    store_settings.invalidate()


def test_the_bank_transfer_hold_defaults_to_24_hours():
    assert store_settings.get_value("payments", "bank_transfer_hold_hours") == 24


def test_a_stored_days_value_does_not_break_reads(admin_client_api):
    stored_payments({"bank_transfer_hold_days": 3, "bank_transfer_iban": "GR00 1"})
    payments = store_settings.get_section("payments")
    assert "bank_transfer_hold_days" not in payments
    assert (payments["bank_transfer_hold_hours"], payments["bank_transfer_iban"]) == (24, "GR00 1")
    response = admin_client_api.get(f"{API}/settings/payments")
    assert response.status_code == 200, response.content
    assert response.json()["bank_transfer_hold_hours"] == 24
    assert guest().get(f"{CHECKOUT}/settings").json()["bank_transfer_hold_hours"] == 24


@pytest.mark.parametrize(("days", "hours"), [(3, 72), (1, 24), (0, 1440), (60, 1440), ("x", None)])
def test_the_migration_turns_days_into_hours(days, hours):
    stored_payments({"bank_transfer_hold_days": days, "bank_transfer_bic": "X"})
    MIGRATION.days_to_hours(apps, None)
    values = SettingsSection.objects.get(name="payments").values
    assert "bank_transfer_hold_days" not in values
    assert values.get("bank_transfer_hold_hours") == hours
    assert values["bank_transfer_bic"] == "X"
    store_settings.invalidate()
    expected = hours if hours is not None else 24
    assert store_settings.get_value("payments", "bank_transfer_hold_hours") == expected


def test_the_migration_back_turns_hours_into_days():
    stored_payments({"bank_transfer_hold_hours": 30})
    MIGRATION.hours_to_days(apps, None)
    assert SettingsSection.objects.get(name="payments").values == {"bank_transfer_hold_days": 2}


def test_settings_cached_by_an_older_release_are_not_read():
    """A cache filled before a key was added or renamed (a deploy with a warm Redis) holds
    sections without it: they are read again from the database, not used."""
    old = store_settings.get_all()
    old = {**old, "payments": {**old["payments"], "bank_transfer_hold_days": 3}}
    del old["payments"]["bank_transfer_hold_hours"]
    cache.set(store_settings.CACHE_KEY, old, None)  # the key the previous release used
    assert store_settings.get_value("payments", "bank_transfer_hold_hours") == 24
