"""Idempotency-Key on the store: every creating POST of ec/v1 runs once per
key; a repeat with the same body answers the first answer (`Idempotent-Replayed: true`) and
creates nothing; another body under the key is 422 `idempotency_key_reused`; a repeat while
the first runs is 409. Keys belong to the account, else to the guest's cart session, else to
the client address. Unsafe methods go through a client that enforces CSRF."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db.models import Model
from django.test import Client
from django.test.client import encode_multipart

from common import idempotency
from common.models import IdempotencyRecord
from store.cart.models import Cart, CartItem
from store.catalog.models import Attribute, AttributeTerm, Brand, Category, Product, Variant
from store.checkout.models import Checkout
from store.common.cart_session import CART_COOKIE, CART_HEADER
from store.coupons.models import Coupon
from store.docs.schema import store_schema_document
from store.media.models import MediaImage
from store.orders.models import Order, OrderItem, Payment, Shipment
from store.payments.models import SandboxCharge
from store.reviews.models import Review
from store.settings import services as settings_services
from tests.accounts.factories import PASSWORD, UserFactory
from tests.fixtures.store import API, basic_auth, error
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_product
from tests.store.checkout.helpers import CARD, CHECKOUT, Shop, details
from tests.store.media.factories import image_bytes, upload
from tests.store.orders.factories import line, make_order, stocked

pytestmark = pytest.mark.django_db

KEY = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"


def csrf_client(user=None) -> Client:
    headers = {"Authorization": basic_auth(user)} if user is not None else {}
    return Client(enforce_csrf_checks=True, headers=headers)


def post(client: Client, path: str, body, key: str | None = None):
    headers = {KEY: key} if key is not None else {}
    return client.post(
        path, data=json.dumps(body), content_type="application/json", headers=headers
    )


@pytest.fixture
def staff(manager):
    return csrf_client(manager)


# --- Every creating POST: replay, no second row, another body 422 ---------------------------


@dataclass
class Case:
    """A creating POST: `make` makes the rows it needs and answers its path and two different
    bodies; `model` is what it creates."""

    make: Callable[[], tuple[str, dict, dict]]
    model: type[Model]
    status: int = 201


def _duplicate():
    product = make_product(title="Lamp", sku="L-1")
    return f"{API}/products/{product.pk}/duplicate", {}, {"title": "another body"}


def _order():
    lamp = stocked(title="Lamp", stock=10)
    return (
        f"{API}/orders",
        {"items": [{"product_id": lamp.pk, "quantity": 2}]},
        {"items": [{"product_id": lamp.pk, "quantity": 1}]},
    )


def _order_item():
    order = make_order(line(stocked(title="Mug")))
    lamp = stocked(title="Lamp")
    path = f"{API}/orders/{order.pk}/items"
    return path, {"product_id": lamp.pk, "quantity": 1}, {"product_id": lamp.pk, "quantity": 2}


def _payment():
    order = make_order(line(stocked(price="50.00")))
    return f"{API}/orders/{order.pk}/payments", {"amount": "20.00"}, {"amount": "30.00"}


def _shipment():
    order = make_order(line(stocked(), 2))
    return f"{API}/orders/{order.pk}/shipments", {"carrier": "ACS"}, {"carrier": "ELTA"}


def _variant():
    shirt = make_product(title="Shirt", type="variable", regular_price="20.00")
    colour = AttributeFactory(slug="color")
    red, blue = TermFactory(attribute=colour, slug="red"), TermFactory(attribute=colour, slug="b")
    return (
        f"{API}/products/{shirt.pk}/variants",
        {"attributes": [{"attribute_id": colour.pk, "term_id": red.pk}]},
        {"attributes": [{"attribute_id": colour.pk, "term_id": blue.pk}]},
    )


def _term():
    colour = AttributeFactory(slug="colour")
    return f"{API}/attributes/{colour.pk}/terms", {"name": "Red"}, {"name": "Blue"}


def _named(path: str, first: dict, second: dict):
    return lambda: (f"{API}/{path}", first, second)


CASES = {
    "product": Case(_named("products", {"title": "Desk lamp"}, {"title": "Desk"}), Product),
    "product duplicate": Case(_duplicate, Product),
    "variant": Case(_variant, Variant),
    "category": Case(_named("categories", {"name": "Lamps"}, {"name": "Desks"}), Category),
    "attribute": Case(_named("attributes", {"name": "Colour"}, {"name": "Size"}), Attribute),
    "term": Case(_term, AttributeTerm),
    "brand": Case(_named("brands", {"name": "Lumen"}, {"name": "Umbra"}), Brand),
    "order": Case(_order, Order),
    "order item": Case(_order_item, OrderItem),
    "payment": Case(_payment, Payment),
    "shipment": Case(_shipment, Shipment),
    "admin coupon": Case(
        _named(
            "admin/coupons",
            {"code": "TEN", "discount_type": "percent", "amount": "10"},
            {"code": "TWENTY", "discount_type": "percent", "amount": "20"},
        ),
        Coupon,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_creating_post_runs_once_per_key(staff, name):
    case = CASES[name]
    path, body, other = case.make()
    before = case.model.objects.count()

    first = post(staff, path, body, key="create-1")
    assert first.status_code == case.status, first.content
    assert not first.has_header(REPLAYED)
    made = case.model.objects.count()
    assert made > before

    again = post(staff, path, body, key="create-1")
    assert again.status_code == first.status_code
    assert again.json() == first.json()
    assert again[REPLAYED] == "true"
    assert again["Content-Type"] == "application/json"
    assert case.model.objects.count() == made

    reused = error(post(staff, path, other, key="create-1"), 422, "idempotency_key_reused")
    assert KEY in reused["data"]["params"]
    assert case.model.objects.count() == made

    fresh = post(staff, path, other, key="create-2")  # a new key: run, not replayed
    assert not fresh.has_header(REPLAYED)


def test_a_replayed_order_takes_its_stock_once(staff):
    lamp = stocked(title="Lamp", stock=10)
    body = {"items": [{"product_id": lamp.pk, "quantity": 3}]}
    assert post(staff, f"{API}/orders", body, key="o-1").status_code == 201
    assert post(staff, f"{API}/orders", body, key="o-1")[REPLAYED] == "true"
    lamp.refresh_from_db()
    assert lamp.stock_quantity == 7
    assert Order.objects.count() == 1


def test_a_review_runs_once_per_key():
    lamp = make_product(title="Lamp")
    client = csrf_client(UserFactory(email="reader@example.com"))
    path = f"{API}/products/{lamp.pk}/reviews"
    first = post(client, path, {"rating": 5, "content": "Bright."}, key="r-1")
    assert first.status_code == 201, first.content
    again = post(client, path, {"rating": 5, "content": "Bright."}, key="r-1")
    assert (again.status_code, again.json(), again[REPLAYED]) == (201, first.json(), "true")
    error(post(client, path, {"rating": 4, "content": "Bright."}, key="r-1"), 422)
    assert Review.objects.count() == 1
    # Without the key the rule applies: one review per account and product.
    error(post(client, path, {"rating": 5, "content": "Bright."}), 409, "review_exists")


# --- Media: multipart, compared by content ----------------------------------------------------


def multipart(client: Client, fields: dict, *, key: str, boundary: str):
    return client.post(
        f"{API}/media",
        data=encode_multipart(boundary, fields),
        content_type=f"multipart/form-data; boundary={boundary}",
        headers={KEY: key},
    )


def test_an_upload_runs_once_per_key_whatever_the_boundary(staff):
    data = image_bytes("PNG", (40, 30))
    first = multipart(
        staff, {"file": upload("a.png", data, "image/png"), "alt": "A"}, key="m-1", boundary="one"
    )
    assert first.status_code == 201, first.content
    again = multipart(
        staff, {"file": upload("a.png", data, "image/png"), "alt": "A"}, key="m-1", boundary="two"
    )
    assert (again.status_code, again.json(), again[REPLAYED]) == (201, first.json(), "true")
    assert MediaImage.objects.count() == 1

    other = image_bytes("PNG", (40, 31))
    for index, fields in enumerate(
        [
            {"file": upload("a.png", other, "image/png"), "alt": "A"},  # another file
            {"file": upload("a.png", data, "image/png"), "alt": "B"},  # another field
            {"file": upload("b.png", data, "image/png"), "alt": "A"},  # another name
        ]
    ):
        response = multipart(staff, fields, key="m-1", boundary=f"other-{index}")
        error(response, 422, "idempotency_key_reused")
    assert MediaImage.objects.count() == 1


def test_an_upload_past_the_cap_is_413_and_keeps_no_key(staff):
    settings_services.settings_update(section="media", values={"max_upload_size_mb": 1})
    big = b"\xff\xd8" + b"0" * (1024 * 1024 + 10)
    response = multipart(staff, {"file": upload("big.jpg", big)}, key="big", boundary="b")
    error(response, 413, "file_too_large")
    assert not IdempotencyRecord.objects.exists()
    assert not MediaImage.objects.exists()


# --- The shopper's POSTs: cart session scope --------------------------------------------------


@pytest.fixture
def shop(db):
    return Shop()


def guest() -> Client:
    return Client(enforce_csrf_checks=True)


def filled(shop: Shop) -> Client:
    client = guest()
    response = post(client, f"{API}/cart/items", {"product_id": shop.lamp.pk, "quantity": 2})
    assert response.status_code == 200, response.content
    return client


def test_a_checkout_start_runs_once_per_key(shop):
    client = filled(shop)
    first = post(client, CHECKOUT, details(), key="start-1")
    assert first.status_code == 201, first.content
    again = post(client, CHECKOUT, details(), key="start-1")
    assert (again.status_code, again.json(), again[REPLAYED]) == (201, first.json(), "true")
    assert again["Cache-Control"] == "no-store"
    assert Checkout.objects.count() == 1
    assert shop.stock() == 3  # held once
    error(post(client, CHECKOUT, details(email="b@example.com"), key="start-1"), 422)
    assert Checkout.objects.get().email == "ana@example.com"


def test_a_checkout_complete_runs_once_per_key(shop):
    client = filled(shop)
    checkout = post(client, CHECKOUT, details()).json()
    path = f"{CHECKOUT}/{checkout['id']}/complete"
    first = post(client, path, {"payment_data": CARD}, key="pay-1")
    assert first.status_code == 200, first.content
    again = post(client, path, {"payment_data": CARD}, key="pay-1")
    assert (again.status_code, again.json(), again[REPLAYED]) == (200, first.json(), "true")
    assert (Order.objects.count(), SandboxCharge.objects.count()) == (1, 1)
    other = {"payment_data": {**CARD, "cvc": "999"}}
    error(post(client, path, other, key="pay-1"), 422, "idempotency_key_reused")
    assert (Order.objects.count(), SandboxCharge.objects.count()) == (1, 1)


def test_a_guests_keys_are_their_cart_sessions(shop):
    """Two guests behind one address, each with a cart: the same key and body are two
    requests; neither gets the other's answer."""
    ana, bob = filled(shop), filled(shop)
    first = post(ana, CHECKOUT, details(), key="start")
    second = post(bob, CHECKOUT, details(), key="start")
    assert first.status_code == second.status_code == 201
    assert not second.has_header(REPLAYED)
    assert first.json()["id"] != second.json()["id"]
    assert Checkout.objects.count() == 2
    scopes = set(IdempotencyRecord.objects.values_list("scope", flat=True))
    assert len(scopes) == 2
    tokens = set(Cart.objects.values_list("token", flat=True))
    assert all(scope.startswith("cart:") for scope in scopes)
    assert not any(token in scope for token in tokens for scope in scopes)  # hashed


def test_a_first_write_without_a_cart_is_replayed_with_its_cart_cookie(shop):
    """A guest's first write makes the cart; when its answer is lost, the retry (still without
    a cookie) gets the answer and the cookie of the cart made, not a second cart."""
    body = {"product_id": shop.lamp.pk, "quantity": 1}
    first_try = guest()
    first = post(first_try, f"{API}/cart/items", body, key="add-1")
    assert first.status_code == 200, first.content
    token = first.cookies[CART_COOKIE].value

    retry = guest()  # the answer was lost: no cookie
    again = post(retry, f"{API}/cart/items", body, key="add-1")
    assert (again.status_code, again.json(), again[REPLAYED]) == (200, first.json(), "true")
    assert again.cookies[CART_COOKIE].value == token
    assert again[CART_HEADER] == token
    assert again["Cache-Control"] == "no-store"
    assert Cart.objects.count() == 1
    assert CartItem.objects.get().quantity == 1
    # The retrying client now holds that cart.
    assert retry.get(f"{API}/cart").json()["cart"]["item_count"] == 1


def test_a_logged_in_customers_keys_are_their_accounts(shop):
    customer = UserFactory(email="ana@example.com")
    client = csrf_client(customer)
    assert post(client, f"{API}/cart/items", {"product_id": shop.lamp.pk}).status_code == 200
    response = post(client, CHECKOUT, details(), key="mine")
    assert response.status_code == 201, response.content
    assert IdempotencyRecord.objects.get().scope == f"account:{customer.pk}"


def test_a_repeat_while_the_first_runs_is_409(staff, manager):
    body = {"name": "Lamps"}
    IdempotencyRecord.objects.create(
        scope=f"account:{manager.pk}",
        key_hash=idempotency._hash("busy"),
        fingerprint=idempotency.fingerprint("POST", f"{API}/categories", json.dumps(body).encode()),
    )
    response = post(staff, f"{API}/categories", body, key="busy")
    error(response, 409, "idempotency_key_in_use")
    assert response["Retry-After"] == "1"
    assert not Category.objects.exists()


def test_a_refused_post_keeps_no_key(staff):
    error(post(staff, f"{API}/categories", {}, key="fix-me"), 400, "invalid_param")
    assert not IdempotencyRecord.objects.exists()
    fixed = post(staff, f"{API}/categories", {"name": "Lamps"}, key="fix-me")
    assert fixed.status_code == 201
    assert not fixed.has_header(REPLAYED)


def test_an_invalid_key_is_400_and_creates_nothing(staff):
    error(
        post(staff, f"{API}/categories", {"name": "Lamps"}, key="x" * 256),
        400,
        "invalid_idempotency_key",
    )
    assert not Category.objects.exists()


def test_a_key_needs_the_same_permissions(staff):
    """A replay is an answer of the route: a caller who may not use it gets no answer."""
    post(staff, f"{API}/categories", {"name": "Lamps"}, key="k")
    error(post(guest(), f"{API}/categories", {"name": "Lamps"}, key="k"), 401)


def test_log_ins_ignore_the_key():
    """A log-in answer is a session (its cookie): never replayed."""
    UserFactory(email="ana@example.com")
    body = {"email": "ana@example.com", "password": PASSWORD}
    for _ in range(2):
        response = post(guest(), f"{CHECKOUT}/login", body, key="login")
        assert response.status_code == 200, response.content
        assert not response.has_header(REPLAYED)
    assert not IdempotencyRecord.objects.exists()


# --- The API description ----------------------------------------------------------------------


def test_every_store_post_documents_the_header():
    schema = store_schema_document()
    skipped = {"/checkout/login", "/checkout/create-account"}
    # Inbound provider events: deduplicated by the provider's event id instead.
    skipped |= {"/webhooks/payment/{gateway_id}", "/payment/callback/{gateway_id}"}
    skipped |= {"/marketplace/webhook/{marketplace}"}  # by the marketplace's event id
    posts = {path: ops["post"] for path, ops in schema["paths"].items() if "post" in ops}
    assert {"/orders", "/media", "/products", "/checkout", "/admin/coupons"} <= set(posts)
    for path, operation in posts.items():
        names = [p["name"] for p in operation.get("parameters", [])]
        if path in skipped:
            assert KEY not in names, path
            continue
        assert KEY in names, path
        assert "422" in operation["responses"], path
        assert "idempotency_key_in_use" in operation["responses"]["409"]["description"], path
    for ops in schema["paths"].values():
        for method in ("get", "put", "patch", "delete"):
            if method in ops:
                assert KEY not in [p["name"] for p in ops[method].get("parameters", [])]
