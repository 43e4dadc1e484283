"""A checkout is bound to the cart session (spec: Authentication 3) and to its shopper."""

import pytest
from rest_framework.test import APIClient

from store.checkout.models import Checkout
from tests.fixtures.store import error
from tests.store.cart.helpers import add
from tests.store.checkout.helpers import CHECKOUT, complete, cookie_of, started

pytestmark = pytest.mark.django_db


def routes(checkout_id: int):
    path = f"{CHECKOUT}/{checkout_id}"
    return [
        ("get", path),
        ("patch", path),
        ("put", path),
        ("post", f"{path}/validate"),
        ("post", f"{path}/complete"),
    ]


def test_someone_elses_checkout_is_not_found(anon, shop):
    body = started(anon, shop)
    stranger = APIClient()
    add(stranger, shop.mug.pk, 1)  # a cart of their own
    for method, path in routes(body["id"]):
        # A valid body of each route (complete and validate take no e-mail address).
        sent = {"email": "x@example.com"} if method in ("patch", "put") else {}
        response = getattr(stranger, method)(path, sent, format="json")
        error(response, 404, "checkout_not_found")
    checkout = Checkout.objects.get(pk=body["id"])
    assert (checkout.status, checkout.email, checkout.order_id) == ("open", "ana@example.com", None)
    error(stranger.get(f"{CHECKOUT}/999999"), 404, "checkout_not_found")


def test_a_cart_id_hint_reaches_the_checkout_without_cookies(anon, shop):
    body = started(anon, shop)
    token = cookie_of(anon)
    bare = APIClient()
    response = bare.get(f"{CHECKOUT}/{body['id']}", HTTP_X_CART_ID=token)
    assert response.status_code == 200
    response = bare.get(f"{CHECKOUT}/{body['id']}?cart_id={token}")
    assert response.status_code == 200
    response = bare.patch(
        f"{CHECKOUT}/{body['id']}", {"customer_note": "via hint", "cart_id": token}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["customer_note"] == "via hint"


def test_the_cookie_wins_over_a_conflicting_hint(anon, shop):
    body = started(anon, shop)
    other = APIClient()
    add(other, shop.mug.pk, 1)
    # The other shopper's cookie wins: naming the first cart in a hint reaches nothing.
    response = other.get(f"{CHECKOUT}/{body['id']}", HTTP_X_CART_ID=cookie_of(anon))
    error(response, 404, "checkout_not_found")


def test_a_customers_checkout_follows_the_account_not_the_cookie(store_client, customer, shop):
    client = store_client(customer)
    body = started(client, shop)
    assert Checkout.objects.get().user == customer
    elsewhere = store_client(customer)  # another device: no cookie, same account
    assert elsewhere.get(f"{CHECKOUT}/{body['id']}").status_code == 200
    # The cookie of a customer's cart without the login reaches nothing.
    thief = APIClient()
    thief.cookies.load({"ec_cart_id": cookie_of(client)})
    error(thief.get(f"{CHECKOUT}/{body['id']}"), 404, "checkout_not_found")


def test_a_completed_checkout_stays_readable_by_its_session(anon, shop):
    body = started(anon, shop)
    assert complete(anon, body["id"]).status_code == 200
    response = anon.get(f"{CHECKOUT}/{body['id']}")
    assert response.status_code == 200
    read = response.json()
    assert read["status"] == "completed"
    assert read["cart"] is None
    assert read["order"]["order_number"].startswith("EC-")


def test_reading_a_checkout_costs_a_fixed_number_of_queries(anon, shop, django_assert_num_queries):
    from tests.store.catalog.factories import make_product

    body = started(anon, shop)
    path = f"{CHECKOUT}/{body['id']}"
    anon.get(path)  # the caches (zones, rates, settings) are warm
    with django_assert_num_queries(7):  # session, cart, checkout, lines, coupons, ...
        assert anon.get(path).status_code == 200
    for n in range(6):
        add(anon, make_product(title=f"Extra {n}", stock_quantity=3).pk, 1)
    anon.patch(path, {}, format="json")
    with django_assert_num_queries(7):  # the same with seven lines
        assert anon.get(path).status_code == 200
