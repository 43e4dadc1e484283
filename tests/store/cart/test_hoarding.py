"""Stock hoarding, the cart's part: units per line are capped far below the
old 9999, and every cart write is rate limited per client address (per account when logged
in), 429 with Retry-After in the store's error shape, changing nothing."""

from __future__ import annotations

import json

import pytest
from django.conf import settings as django_settings
from django.test import Client

from store.cart.models import Cart, CartCoupon, CartItem
from store.common.cart_session import CART_COOKIE
from store.settings import selectors as store_settings
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, error
from tests.store.catalog.factories import make_product
from tests.store.coupons.factories import make_coupon
from tests.store.shipping.factories import make_method, make_zone

pytestmark = pytest.mark.django_db

CART = f"{API}/cart"


def limit(settings, **rates) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def send(client: Client, method: str, path: str, body=None, **extra):
    kwargs = {"content_type": "application/json"}
    if body is not None:
        kwargs["data"] = json.dumps(body)
    return getattr(client, method)(path, **kwargs, **extra)


@pytest.fixture
def mug():
    return make_product(title="Mug", regular_price="8.00")  # stock not tracked


@pytest.fixture
def shopper() -> Client:
    return Client(enforce_csrf_checks=True)


def test_the_line_limit_defaults_far_below_9999(shopper, mug):
    assert store_settings.get_value("cart", "max_quantity") == 100
    body = error(
        send(shopper, "post", f"{CART}/items", {"product_id": mug.pk, "quantity": 101}),
        400,
        "cart_item_quantity_limit",
    )
    assert "At most 100 units" in body["message"]
    assert not Cart.objects.exists()
    item_id = send(shopper, "post", f"{CART}/items", {"product_id": mug.pk, "quantity": 100})
    item_id = item_id.json()["cart"]["items"][0]["id"]
    error(
        send(shopper, "patch", f"{CART}/items/{item_id}", {"quantity": 101}),
        400,
        "cart_item_quantity_limit",
    )
    error(
        send(shopper, "post", f"{CART}/items", {"product_id": mug.pk, "quantity": 1}),
        400,
        "cart_item_quantity_limit",
    )
    assert CartItem.objects.get().quantity == 100


def test_the_default_rates():
    rates = django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert (rates["cart_write"], rates["checkout_start"]) == ("60/min", "20/hour")


def test_the_61st_cart_write_in_a_minute_is_refused(shopper, mug):
    for _ in range(60):
        response = send(shopper, "post", f"{CART}/items", {"product_id": mug.pk, "quantity": 1})
        assert response.status_code == 200, response.content
    response = send(shopper, "post", f"{CART}/items", {"product_id": mug.pk, "quantity": 1})
    error(response, 429, "throttled")
    assert CartItem.objects.get().quantity == 60


def test_every_cart_write_counts_and_reads_do_not(shopper, mug, settings):
    limit(settings, cart_write="8/min")
    zone = make_zone("Greece", countries=["GR"])
    method = make_method(zone, "flat_rate", "Courier", cost="5.00")
    make_coupon("TEN", "percent", 10)
    item_id = send(shopper, "post", f"{CART}/items", {"product_id": mug.pk}).json()["cart"][
        "items"
    ][0]["id"]
    writes = [
        ("patch", f"{CART}/items/{item_id}", {"quantity": 2}),
        ("put", f"{CART}/items/{item_id}", {"quantity": 3}),
        ("post", f"{CART}/shipping-address", {"country": "GR"}),
        ("post", f"{CART}/shipping-method", {"method_id": method.pk}),
        ("post", f"{API}/coupons/apply", {"code": "TEN"}),  # its own limit: not counted here
        ("post", f"{API}/coupons/remove", {"code": "TEN"}),
        ("delete", f"{CART}/items/{item_id}", None),
        ("post", f"{CART}/clear", None),
    ]
    for method_name, path, body in writes:
        response = send(shopper, method_name, path, body)
        assert response.status_code == 200, (path, response.content)
    for path in (CART, f"{CART}/summary", f"{CART}/shipping-methods", f"{API}/coupons/applied"):
        assert shopper.get(path).status_code == 200
    cart = Cart.objects.get()
    refused = send(shopper, "post", f"{CART}/items", {"product_id": mug.pk})
    body = error(refused, 429, "throttled")
    assert int(refused["Retry-After"]) >= 1
    assert "Try again in" in body["message"]
    assert not CartItem.objects.exists()
    for method_name, path, body in [
        ("post", f"{CART}/shipping-address", {"country": "CY"}),
        ("post", f"{CART}/clear", None),
        ("post", f"{API}/coupons/remove", {"code": "TEN"}),
    ]:
        error(send(shopper, method_name, path, body), 429, "throttled")
    cart.refresh_from_db()
    assert cart.shipping_country == "GR"
    assert not CartCoupon.objects.exists()


def test_the_limit_is_per_client_address(mug, settings):
    limit(settings, cart_write="2/min")
    here, there = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    body = {"product_id": mug.pk}
    for _ in range(2):
        assert send(here, "post", f"{CART}/items", body, REMOTE_ADDR="10.0.0.1").status_code == 200
    # A new cart (no cookie) from the same address does not start afresh.
    error(send(there, "post", f"{CART}/items", body, REMOTE_ADDR="10.0.0.1"), 429, "throttled")
    assert there.cookies.get(CART_COOKIE) is None
    assert send(there, "post", f"{CART}/items", body, REMOTE_ADDR="10.0.0.2").status_code == 200
    assert Cart.objects.count() == 2


def test_a_logged_in_shopper_counts_per_account(mug, settings):
    limit(settings, cart_write="2/min")
    ana = Client(enforce_csrf_checks=True, headers={"Authorization": basic_auth(UserFactory())})
    guest = Client(enforce_csrf_checks=True)
    body = {"product_id": mug.pk}
    for _ in range(2):
        assert send(ana, "post", f"{CART}/items", body).status_code == 200
    error(send(ana, "post", f"{CART}/items", body), 429, "throttled")
    assert send(guest, "post", f"{CART}/items", body).status_code == 200  # same address
