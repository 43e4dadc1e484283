"""The cart session: the ec_cart_id cookie, cart_id hints, carts that follow a customer, and
the guest cart merged when the shopper logs in."""

import logging

import pytest
from django.test import Client
from rest_framework.test import APIClient

from store.cart.models import Cart, CartCoupon, CartItem
from store.cart.services.session import cart_merge_on_login
from store.common.cart_session import CART_COOKIE
from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth
from tests.store.cart.helpers import CART, add, cart_of, token_of
from tests.store.catalog.factories import make_product
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db


@pytest.fixture
def lamp():
    return make_product(title="Lamp", regular_price="10.00")


@pytest.fixture
def mug():
    return make_product(title="Mug", regular_price="4.00")


def hinted(token, where):
    """A cookie-less client that hints its cart the given way."""
    client = APIClient()
    if where == "header":
        client.credentials(HTTP_X_CART_ID=token)
    return client


def test_the_cookie_is_httponly_lax_and_lasts_30_days(anon, lamp):
    add(anon, lamp.pk)
    morsel = anon.cookies[CART_COOKIE]
    assert morsel["httponly"] is True
    assert morsel["samesite"] == "Lax"
    assert morsel["secure"] == ""
    assert int(morsel["max-age"]) == 30 * 24 * 3600
    assert morsel["path"] == "/"


def test_the_cookie_is_secure_under_https(lamp):
    client = APIClient()
    response = client.post(f"{CART}/items", {"product_id": lamp.pk}, format="json", secure=True)
    assert response.status_code == 200
    assert response.cookies[CART_COOKIE]["secure"] is True


def test_the_cookie_is_sent_once_not_on_every_answer(anon, lamp):
    first = add(anon, lamp.pk)
    assert CART_COOKIE in first.cookies
    second = add(anon, lamp.pk)
    assert CART_COOKIE not in second.cookies
    assert "X-Cart-ID" not in second.headers
    assert cart_of(anon)["item_count"] == 2


@pytest.mark.parametrize("where", ["body", "query", "header"])
def test_a_hint_finds_the_cart_without_a_cookie(anon, lamp, mug, where):
    token = add(anon, lamp.pk).json() and token_of(anon)
    client = hinted(token, where)
    body = {"product_id": mug.pk}
    path = f"{CART}/items"
    if where == "body":
        body["cart_id"] = token
    elif where == "query":
        path += f"?cart_id={token}"
    response = client.post(path, body, format="json")
    assert response.status_code == 200, response.content
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Lamp", "Mug"]
    assert Cart.objects.count() == 1
    # Reads take the query and header hints too.
    read = client.get(f"{CART}?cart_id={token}" if where != "header" else CART)
    assert read.json()["cart"]["item_count"] == 2


def test_the_cookie_wins_over_a_hint_and_the_mismatch_is_only_logged(lamp, mug, caplog):
    first, second = APIClient(), APIClient()
    add(first, lamp.pk)
    add(second, mug.pk)
    second_token = token_of(second)
    with caplog.at_level(logging.INFO, logger="store.common.cart_session"):
        response = first.get(f"{CART}?cart_id={second_token}", HTTP_X_CART_ID=second_token)
    assert response.status_code == 200
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Lamp"]
    assert "cookie wins" in caplog.text
    response = first.post(
        f"{CART}/items", {"product_id": mug.pk, "cart_id": second_token}, format="json"
    )
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Lamp", "Mug"]
    assert Cart.objects.get(token=second_token).items.count() == 1


def test_a_stale_cookie_still_wins_and_a_fresh_cart_is_made(lamp, mug):
    other = APIClient()
    add(other, mug.pk)
    client = APIClient()
    gone = "g" * 43
    client.cookies[CART_COOKIE] = gone
    assert client.get(f"{CART}?cart_id={token_of(other)}").json()["cart"]["items"] == []
    response = add(client, lamp.pk)
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Lamp"]
    fresh = token_of(client)
    assert fresh != gone
    assert Cart.objects.filter(token=gone).count() == 0
    assert Cart.objects.count() == 2


def test_a_client_cannot_choose_its_token(lamp):
    client = APIClient()
    chosen = "c" * 40
    response = client.post(
        f"{CART}/items", {"product_id": lamp.pk, "cart_id": chosen}, format="json"
    )
    assert response.status_code == 200
    assert Cart.objects.get().token != chosen
    assert response["X-Cart-ID"] == Cart.objects.get().token


def test_malformed_hints_are_ignored(lamp):
    client = APIClient()
    assert client.get(f"{CART}?cart_id=short", HTTP_X_CART_ID="bad token!").status_code == 200


def test_a_customers_cart_follows_the_account(store_client, customer, lamp, mug):
    phone, laptop = store_client(customer), store_client(customer)
    add(phone, lamp.pk)
    cart = Cart.objects.get()
    assert cart.user == customer
    response = add(laptop, mug.pk)
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Lamp", "Mug"]
    assert Cart.objects.count() == 1


def test_a_customers_cart_is_never_served_without_the_login(store_client, customer, lamp):
    client = store_client(customer)
    add(client, lamp.pk)
    token = Cart.objects.get().token
    stranger = APIClient()
    stranger.cookies[CART_COOKIE] = token
    assert stranger.get(CART).json()["cart"]["items"] == []
    assert stranger.get(f"{CART}?cart_id={token}").json()["cart"]["items"] == []
    add(stranger, lamp.pk)
    assert Cart.objects.get(user=customer).items.get().quantity == 1
    assert Cart.objects.count() == 2


def test_another_customers_token_is_ignored(store_client, customer, lamp, mug):
    add(store_client(customer), lamp.pk)
    token = Cart.objects.get(user=customer).token
    someone = UserFactory()
    client = store_client(someone)
    client.cookies[CART_COOKIE] = token
    response = add(client, mug.pk)
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Mug"]
    assert Cart.objects.get(user=customer).items.count() == 1


def test_logging_in_merges_the_guest_cart(store_client, customer, lamp, mug):
    account = store_client(customer)
    add(account, lamp.pk, 1)
    guest = APIClient()
    add(guest, lamp.pk, 2)
    add(guest, mug.pk, 1)
    guest_token = token_of(guest)
    # The same browser, now logged in (an application password here), still has the cookie.
    guest.credentials(HTTP_AUTHORIZATION=basic_auth(customer))
    cart = cart_of(guest)
    assert [(i["title"], i["quantity"]) for i in cart["items"]] == [("Lamp", 3), ("Mug", 1)]
    assert not Cart.objects.filter(token=guest_token).exists()
    own = Cart.objects.get(user=customer)
    assert token_of(guest) == own.token


def test_a_session_login_with_the_nonce_merges_too(customer, lamp):
    browser = Client()
    browser.post(f"{CART}/items", {"product_id": lamp.pk}, content_type="application/json")
    browser.force_login(customer)
    nonce = browser.get("/rest/ec/v1/auth/nonce").json()["nonce"]
    response = browser.get(CART, HTTP_X_PLATFORM_NONCE=nonce)
    assert response.json()["cart"]["item_count"] == 1
    assert Cart.objects.get().user == customer
    # Without the nonce the session counts as logged out: the customer's cart is not served.
    assert Client().get(CART).json()["cart"]["items"] == []


def test_merge_service_adopts_the_guest_cart_when_the_customer_has_none(customer, lamp):
    client = APIClient()
    add(client, lamp.pk, 2)
    guest = Cart.objects.get()
    cart = cart_merge_on_login(user=customer, token=guest.token)
    assert cart.pk == guest.pk
    assert cart.user == customer
    assert cart_merge_on_login(user=customer, token=guest.token).pk == guest.pk
    assert cart_merge_on_login(user=customer, token=None).pk == guest.pk


def test_merge_service_adds_lines_caps_at_stock_and_moves_coupons_and_address(
    store_client, customer, lamp
):
    vase = make_product(title="Vase", regular_price="8.00", track_inventory=True, stock_quantity=3)
    coupon = make_coupon("TEN", "percent", 10)
    account = store_client(customer)
    add(account, vase.pk, 2)
    guest = APIClient()
    add(guest, vase.pk, 2)
    add(guest, lamp.pk, 1)
    guest.post(f"{CART}/shipping-address", {"country": "FR", "postcode": "75001"}, format="json")
    guest.post("/rest/ec/v1/coupons/apply", {"code": "ten"}, format="json")
    token = token_of(guest)
    cart = cart_merge_on_login(user=customer, token=token)
    lines = {i.product.title: i.quantity for i in cart.items.select_related("product")}
    assert lines == {"Vase": 3, "Lamp": 1}
    assert (cart.shipping_country, cart.shipping_postcode) == ("FR", "75001")
    assert list(CartCoupon.objects.filter(cart=cart).values_list("coupon", flat=True)) == [
        coupon.pk
    ]
    assert Cart.objects.count() == 1
    assert CartItem.objects.count() == 2
    # A second call with the same token changes nothing.
    cart_merge_on_login(user=customer, token=token)
    assert {i.product.title: i.quantity for i in cart.items.select_related("product")} == lines


def test_merge_service_needs_a_user(lamp):
    with pytest.raises(ValueError, match="logged-in user"):
        cart_merge_on_login(user=None, token="x" * 43)


def test_a_merge_that_brings_an_individual_use_coupon_beside_others_keeps_the_first(
    store_client, customer, lamp
):
    make_coupon("TEN", "percent", 10)
    make_coupon("SOLO", "fixed_cart", 3, individual_use=True)
    account = store_client(customer)
    add(account, lamp.pk)
    account.post("/rest/ec/v1/coupons/apply", {"code": "TEN"}, format="json")
    guest = APIClient()
    add(guest, lamp.pk)
    guest.post("/rest/ec/v1/coupons/apply", {"code": "SOLO"}, format="json")
    cart_merge_on_login(user=customer, token=token_of(guest))
    cart = cart_of(account)
    assert [c["code"] for c in cart["coupons"]] == ["TEN"]
    assert cart["notices"][0]["code"] == "coupon_removed"
    assert "cannot be combined" in cart["notices"][0]["message"]
