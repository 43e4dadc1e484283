"""Stock hoarding, the checkout's part: starting a checkout is rate limited per client
address; a guest's checkout (and so an unpaid guest order) holds at most
`checkout.guest_order_max_units` units, and no line above `cart.max_quantity`, both refused
before anything is held; one shopper (a cart session, or a client address) holds at most
`checkout.shopper_hold_percent` of an item's stock or `checkout.shopper_hold_min_units` units
across its open checkouts and unpaid orders (409 `product_hold_limit`); an unpaid
bank-transfer order holds its stock 2 hours by default (`checkout.offline_payment_hold_minutes`,
or `payments.bank_transfer_hold_hours`, migrated from `bank_transfer_hold_days`, when
shorter)."""

from __future__ import annotations

import importlib
import json
from datetime import datetime, timedelta

import pytest
import time_machine
from django.apps import apps
from django.core.cache import cache
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from store.checkout import tasks as checkout_tasks
from store.checkout.models import Checkout
from store.inventory.models import StockMovement
from store.orders.models import Order
from store.settings import selectors as store_settings
from store.settings import services as settings_services
from store.settings.models import SettingsSection
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.fixtures.store import API, basic_auth, error
from tests.store.cart.helpers import add, cart_of
from tests.store.catalog.factories import TermFactory, make_product, make_variant
from tests.store.checkout.helpers import CHECKOUT, Shop, complete, details, start

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
    """Two products with 1000 units each in stock (tracked: a checkout holds them; one
    shopper may hold 100 of each), in the shop of the checkout tests (its shipping zone and
    VAT)."""
    return (
        make_product(title="Lamp", sku="L", regular_price="20.00", stock_quantity=1000),
        make_product(title="Desk", sku="D", regular_price="90.00", stock_quantity=1000),
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
    assert (stock(lamp), stock(desk)) == (1000, 1000)
    assert not StockMovement.objects.filter(reason="checkout_hold").exists()

    item = client.get(f"{API}/cart").json()["cart"]["items"][1]["id"]
    lower = client.patch(f"{API}/cart/items/{item}", '{"quantity": 40}', "application/json")
    assert lower.status_code == 200
    assert post(client, CHECKOUT, details()).status_code == 201
    assert (stock(lamp), stock(desk)) == (940, 960)


def test_an_account_with_a_verified_address_is_not_limited(stocked):
    lamp, desk = stocked
    client = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(UserFactory())})
    fill(client, lamp, 100)
    fill(client, desk, 100)
    assert post(client, CHECKOUT, details()).status_code == 201
    assert (stock(lamp), stock(desk)) == (900, 900)


def test_an_unverified_account_counts_as_a_guest(stocked):
    """Accounts are made at the checkout in one request: they do not lift the limit until
    their address is verified."""
    lamp, desk = stocked
    user = UserFactory(email_verified=False)
    client = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(user)})
    fill(client, lamp, 100)
    fill(client, desk, 1)
    error(post(client, CHECKOUT, details()), 400, "guest_order_quantity_limit")
    assert stock(lamp) == 1000


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
    assert stock(lamp) == 950
    fill(client, desk, 60)  # the cart allows it; the checkout does not
    answer = post(client, f"{CHECKOUT}/{checkout['id']}/validate").json()
    assert answer["valid"] is False
    assert [p["code"] for p in answer["problems"]] == ["guest_order_quantity_limit"]
    assert (stock(lamp), stock(desk)) == (950, 1000)  # the desks were not held


def test_complete_refuses_a_cart_grown_past_the_limit(stocked):
    lamp, desk = stocked
    client = guest()
    fill(client, lamp, 50)
    checkout = post(client, CHECKOUT, details(payment_method="bank_transfer")).json()
    fill(client, desk, 60)
    response = post(client, f"{CHECKOUT}/{checkout['id']}/complete", {})
    error(response, 400, "guest_order_quantity_limit")
    assert not Order.objects.exists()
    assert (stock(lamp), stock(desk)) == (950, 1000)


def test_a_line_over_the_per_item_limit_is_refused_before_holding(stocked):
    lamp, _desk = stocked
    client = guest()
    fill(client, lamp, 80)
    settings_services.settings_update(section="cart", values={"max_quantity": 50})
    body = error(post(client, CHECKOUT, details()), 400, "cart_item_quantity_limit")
    item = client.get(f"{API}/cart").json()["cart"]["items"][0]["id"]
    assert list(body["data"]["params"]) == [f"items.{item}.quantity"]
    assert stock(lamp) == 1000
    assert not Checkout.objects.exists()


# --- The bank-transfer hold: the gateway's hours, migrated from days ------------------------


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


# --- One shopper's share of an item: its cart sessions, its address, its unpaid orders --------


@pytest.fixture
def scarce(shop):
    """29 units of a product at 60.90 (EUR 1,766 in all): one shopper may hold 5 (10% is 2)."""
    return make_product(title="Vase", sku="VASE", regular_price="60.90", stock_quantity=29)


def shopper(address: str = "198.51.100.7", **headers) -> APIClient:
    """A cart session (its own cookie) from a client address."""
    return APIClient(REMOTE_ADDR=address, **headers)


def put_in_cart(client: APIClient, product, quantity: int) -> None:
    response = add(client, product.pk, quantity)
    assert response.status_code == 200, response.content


def line_key(client: APIClient) -> str:
    return cart_of(client)["items"][0]["id"]


def refused(response, client: APIClient, *, cap: int) -> dict:
    body = error(response, 409, "product_hold_limit")
    assert f"Vase (product {body_product(client)})" in body["message"]
    assert f"at most {cap}" in body["message"]
    assert list(body["data"]["params"]) == [f"items.{line_key(client)}.quantity"]
    assert f"At most {cap} units" in body["data"]["params"][f"items.{line_key(client)}.quantity"]
    return body


def body_product(client: APIClient) -> int:
    return cart_of(client)["items"][0]["product_id"]


def held(product) -> int:
    """Units of `product` held by open checkouts (the ledger)."""
    moved = StockMovement.objects.filter(
        product=product, reason__in=("checkout_hold", "checkout_hold_released")
    ).values_list("quantity", flat=True)
    return -sum(moved)


def pay_offline(client: APIClient, checkout_id: int) -> dict:
    response = complete(client, checkout_id, payment_method="bank_transfer", payment_data=None)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_attack_one_client_cannot_hold_all_29_units(scarce):
    """The attack as it was: cart adds, a checkout, complete with bank transfer, from one
    anonymous client. The hold beyond the shopper's share is refused, changing nothing."""
    client = shopper()
    put_in_cart(client, scarce, 20)
    put_in_cart(client, scarce, 9)  # the cart itself takes all 29 (it holds nothing)
    body = refused(start(client, payment_method="bank_transfer"), client, cap=5)
    assert "29 asked" in body["message"]
    assert "10%" in body["message"]
    assert stock(scarce) == 29
    assert not Checkout.objects.exists()
    assert held(scarce) == 0

    line = line_key(client)
    lowered = client.patch(f"{API}/cart/items/{line}", {"quantity": 5}, format="json")
    assert lowered.status_code == 200, lowered.content
    checkout = start(client, payment_method="bank_transfer")
    assert checkout.status_code == 201, checkout.content
    assert stock(scarce) == 24
    order = pay_offline(client, checkout.json()["id"])
    assert (order["status"], order["payment_status"]) == ("on_hold", "unpaid")
    assert stock(scarce) == 24  # the order holds the 5 now


def test_several_cart_sessions_of_one_address_share_the_limit(scarce):
    first, second, third = shopper(), shopper(), shopper()
    put_in_cart(first, scarce, 3)
    assert start(first).status_code == 201
    put_in_cart(second, scarce, 3)
    body = refused(start(second), second, cap=5)
    assert "3 held by other checkouts or unpaid orders" in body["message"]
    assert body["data"]["params"][f"items.{line_key(second)}.quantity"].endswith(
        "this cart may hold 2."
    )
    assert Checkout.objects.count() == 1
    assert stock(scarce) == 26
    assert held(scarce) == 3

    second.patch(f"{API}/cart/items/{line_key(second)}", {"quantity": 2}, format="json")
    assert start(second).status_code == 201
    put_in_cart(third, scarce, 1)
    refused(start(third), third, cap=5)
    assert (Checkout.objects.count(), stock(scarce)) == (2, 24)

    # Another address is another shopper.
    elsewhere = shopper("203.0.113.9")
    put_in_cart(elsewhere, scarce, 5)
    assert start(elsewhere).status_code == 201
    assert stock(scarce) == 19


def test_one_session_across_several_checkouts_counts_its_unpaid_orders(scarce, manager_client):
    client = shopper()
    put_in_cart(client, scarce, 4)
    order = pay_offline(client, start(client, payment_method="bank_transfer").json()["id"])
    assert cart_of(client)["items"] == []  # placed: the cart is empty, the session the same

    put_in_cart(client, scarce, 2)
    refused(start(client, payment_method="bank_transfer"), client, cap=5)
    assert Checkout.objects.count() == 1
    assert stock(scarce) == 25

    # The same cart session from another address is still the same shopper.
    moved = shopper("203.0.113.50")
    moved.cookies = client.cookies
    refused(start(moved, payment_method="bank_transfer"), moved, cap=5)

    # Paid, the order no longer counts.
    paid = manager_client.post(
        f"{API}/orders/{order['order_id']}/payments", {"amount": order["total"]}, format="json"
    )
    assert paid.status_code == 201, paid.content
    assert start(client, payment_method="bank_transfer").status_code == 201
    assert stock(scarce) == 23


def test_a_new_session_from_the_address_of_an_unpaid_order_is_limited(scarce):
    first = shopper()
    put_in_cart(first, scarce, 5)
    pay_offline(first, start(first, payment_method="bank_transfer").json()["id"])
    later_session = shopper()
    put_in_cart(later_session, scarce, 1)
    refused(start(later_session), later_session, cap=5)
    assert stock(scarce) == 24


def test_raising_a_held_line_past_the_limit_is_refused_and_validate_reports_it(scarce):
    client = shopper()
    put_in_cart(client, scarce, 4)
    checkout = start(client).json()
    path = f"{CHECKOUT}/{checkout['id']}"
    put_in_cart(client, scarce, 2)  # the cart counts its own hold: 6 of 29 is allowed there
    refused(client.patch(path, {"customer_note": "six"}, format="json"), client, cap=5)
    assert Checkout.objects.get().customer_note == ""
    assert (stock(scarce), held(scarce)) == (25, 4)

    answer = client.post(f"{path}/validate", format="json").json()
    assert answer["valid"] is False
    assert [p["code"] for p in answer["problems"]] == ["product_hold_limit"]
    assert (stock(scarce), held(scarce)) == (25, 4)
    error(complete(client, checkout["id"]), 409, "product_hold_limit")
    assert not Order.objects.exists()
    assert (stock(scarce), held(scarce)) == (25, 4)


def test_what_was_held_within_the_limit_stays_held_when_the_limit_falls(shop):
    vases = make_product(title="Vase", sku="VASE", regular_price="60.90", stock_quantity=100)
    client = shopper()
    put_in_cart(client, vases, 10)  # 10% of 100
    checkout = start(client).json()
    settings_services.settings_update(section="checkout", values={"shopper_hold_percent": 5})
    put_in_cart(client, shop.lamp, 1)  # another item taken: the vases are checked again
    path = f"{CHECKOUT}/{checkout['id']}"
    assert client.patch(path, {"customer_note": "same"}, format="json").status_code == 200
    assert (stock(vases), shop.stock()) == (90, 4)
    assert complete(client, checkout["id"]).status_code == 200
    assert stock(vases) == 90


def test_the_limit_is_two_settings(scarce):
    settings_services.settings_update(section="checkout", values={"shopper_hold_percent": 50})
    client = shopper()
    put_in_cart(client, scarce, 15)
    refused(start(client), client, cap=14)  # half of 29
    settings_services.settings_update(section="checkout", values={"shopper_hold_min_units": 15})
    assert start(client).status_code == 201
    assert stock(scarce) == 14


def test_a_verified_account_is_not_limited_and_does_not_count_for_its_address(scarce):
    account = shopper(headers={"Authorization": basic_auth(UserFactory())})
    put_in_cart(account, scarce, 20)
    assert start(account).status_code == 201
    guest_ = shopper()
    put_in_cart(guest_, scarce, 5)
    assert start(guest_).status_code == 201
    assert stock(scarce) == 4


def test_an_unverified_account_is_limited(scarce):
    user = UserFactory(email_verified=False)
    client = shopper(headers={"Authorization": basic_auth(user)})
    put_in_cart(client, scarce, 6)
    refused(start(client), client, cap=5)
    assert stock(scarce) == 29


# --- The hold of an order awaiting an offline payment: 2 hours ------------------------------


def test_an_unpaid_bank_transfer_order_holds_2_hours_then_the_shopper_may_hold_again(
    scarce, django_capture_on_commit_callbacks
):
    assert store_settings.get_value("checkout", "offline_payment_hold_minutes") == 120
    client = shopper()
    put_in_cart(client, scarce, 5)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        order = pay_offline(client, start(client, payment_method="bank_transfer").json()["id"])
        due = datetime.fromisoformat(order["payment_due_at"])
        assert due == timezone.now() + timedelta(hours=2)
        clock.shift(timedelta(hours=1, minutes=59))
        assert checkout_tasks.cancel_unpaid_orders() == 0
        assert (Order.objects.get().status, stock(scarce)) == ("on_hold", 24)
        put_in_cart(client, scarce, 1)
        refused(start(client), client, cap=5)
        clock.shift(timedelta(minutes=1))
        with django_capture_on_commit_callbacks(execute=True):
            assert checkout_tasks.cancel_unpaid_orders() == 1
        assert (Order.objects.get().status, stock(scarce)) == ("cancelled", 29)
        assert start(client).status_code == 201  # the cancelled order no longer counts
    assert stock(scarce) == 28


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql_only
def test_two_sessions_of_one_address_starting_together_hold_the_limit_once():
    """The limit is checked under the product's lock: two cart sessions of one address
    asking 3 of 29 each at the same moment cannot both pass a limit of 5."""
    Shop()
    vases = make_product(title="Vase", sku="VASE", regular_price="60.90", stock_quantity=29)
    clients = [shopper(), shopper()]
    for client in clients:
        put_in_cart(client, vases, 3)
    results = race(*[lambda c=c: start(c) for c in clients])
    assert sorted(r.status_code for r in results) == [201, 409], [r.content for r in results]
    assert next(r for r in results if r.status_code == 409).json()["code"] == "product_hold_limit"
    assert Checkout.objects.count() == 1
    assert stock(vases) == 26


def test_each_variant_is_an_item_of_its_own(shop):
    shirt = make_product(title="Shirt", type="variable", regular_price="25.00")
    red, blue = (
        make_variant(shirt, TermFactory(name=name), sku=f"SHIRT-{name}", stock_quantity=29)
        for name in ("Red", "Blue")
    )
    client = shopper()
    for variant in (red, blue):
        assert add(client, shirt.pk, 5, variant_id=variant.pk).status_code == 200
    assert start(client).status_code == 201
    red.refresh_from_db()
    blue.refresh_from_db()
    assert (red.stock_quantity, blue.stock_quantity) == (24, 24)
    assert add(client, shirt.pk, 1, variant_id=red.pk).status_code == 200
    body = error(start(client), 409, "product_hold_limit")
    assert f"Shirt - Red (product {shirt.pk}): at most 5, 6 asked" in body["message"]
    red.refresh_from_db()
    assert red.stock_quantity == 24
