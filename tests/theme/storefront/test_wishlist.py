"""/wishlist and /wishlist/{product_id}: the logged-in shopper's, else the cart session's;
unique per product, bounded; a guest's merged into the account at login."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from config.celery import app
from store.cart.models import Cart
from store.common.cart_session import CART_COOKIE
from tests.accounts.factories import PASSWORD
from tests.store.cart.helpers import add
from tests.store.catalog.factories import make_product
from tests.theme.storefront.conftest import BASE, error
from theme.storefront.models import WishlistItem
from theme.storefront.tasks import purge_stale_wishlists

pytestmark = pytest.mark.django_db
WISHLIST = f"{BASE}/wishlist"


@pytest.fixture
def lamp():
    return make_product(title="Lamp", regular_price="10.00")


@pytest.fixture
def mug():
    return make_product(title="Mug", regular_price="4.00")


def ids(client) -> list[int]:
    response = client.get(WISHLIST)
    assert response.status_code == 200, response.content
    return [item["product_id"] for item in response.json()["items"]]


def test_a_guest_gets_a_cart_session_and_a_wishlist(anon, lamp, mug):
    assert ids(anon) == []
    response = anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    assert response.status_code == 201, response.content
    token = response["X-Cart-ID"]
    assert anon.cookies[CART_COOKIE].value == token
    assert Cart.objects.get().token == token
    assert response.json()["item"]["product"]["title"] == "Lamp"
    again = anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    assert again.status_code == 200
    assert again.json()["created"] is False
    anon.post(WISHLIST, {"product_id": mug.pk}, format="json")
    assert ids(anon) == [mug.pk, lamp.pk]
    assert WishlistItem.objects.count() == 2
    assert not WishlistItem.objects.filter(session_key=token).exists()  # kept as a hash
    # another guest sees nothing; a cookie-less client hinting the token sees it
    assert ids(APIClient()) == []
    hinted = APIClient()
    hinted.credentials(HTTP_X_CART_ID=token)
    assert ids(hinted) == [mug.pk, lamp.pk]


def test_the_guest_wishlist_uses_the_existing_cart_session(anon, lamp):
    add(anon, lamp.pk, 1)
    token = anon.cookies[CART_COOKIE].value
    response = anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    assert "X-Cart-ID" not in response
    assert anon.cookies[CART_COOKIE].value == token
    assert Cart.objects.count() == 1


def test_membership_and_removal(anon, lamp, mug):
    anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    assert anon.get(f"{WISHLIST}/{lamp.pk}").json() == {"product_id": lamp.pk, "in_wishlist": True}
    assert anon.get(f"{WISHLIST}/{mug.pk}").json()["in_wishlist"] is False
    error(anon.delete(f"{WISHLIST}/{mug.pk}"), 404, "wishlist_item_not_found")
    assert anon.delete(f"{WISHLIST}/{lamp.pk}").json() == {"deleted": 1}
    assert ids(anon) == []
    error(APIClient().delete(f"{WISHLIST}/{lamp.pk}"), 404, "wishlist_item_not_found")


def test_clear(anon, lamp, mug):
    for product in (lamp, mug):
        anon.post(WISHLIST, {"product_id": product.pk}, format="json")
    other = APIClient()
    other.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    assert anon.delete(WISHLIST).json() == {"deleted": 2}
    assert ids(anon) == []
    assert ids(other) == [lamp.pk]  # only the caller's
    assert APIClient().delete(WISHLIST).json() == {"deleted": 0}


def test_refusals(anon, lamp):
    draft = make_product(title="Draft", regular_price="1.00", status="draft")
    error(anon.post(WISHLIST, {"product_id": draft.pk}, format="json"), 404, "product_not_found")
    error(anon.post(WISHLIST, {"product_id": 999999}, format="json"), 404, "product_not_found")
    for body in (
        {},
        {"product_id": "x"},
        {"product_id": 0},
        {"product_id": True},
        {"product_id": 10**40},
    ):
        error(anon.post(WISHLIST, body, format="json"), 400, "invalid_param")
    assert not WishlistItem.objects.exists()


def test_the_wishlist_is_bounded(anon, settings):
    settings.THEME_WISHLIST_MAX_ITEMS = 2
    products = [make_product(title=f"P{n}", regular_price="1.00") for n in range(3)]
    for product in products[:2]:
        assert anon.post(WISHLIST, {"product_id": product.pk}, format="json").status_code == 201
    error(anon.post(WISHLIST, {"product_id": products[2].pk}, format="json"), 400, "wishlist_full")
    assert WishlistItem.objects.count() == 2


def test_a_logged_in_shoppers_wishlist_follows_the_account(store_client, customer, lamp):
    account = store_client(customer)
    assert account.post(WISHLIST, {"product_id": lamp.pk}, format="json").status_code == 201
    assert WishlistItem.objects.get().user == customer
    assert ids(store_client(customer)) == [lamp.pk]
    assert ids(APIClient()) == []


def test_the_guest_wishlist_is_merged_at_login(customer, store_client, lamp, mug):
    mine = make_product(title="Mine", regular_price="1.00")
    store_client(customer).post(WISHLIST, {"product_id": mine.pk}, format="json")
    store_client(customer).post(WISHLIST, {"product_id": lamp.pk}, format="json")
    browser = Client(enforce_csrf_checks=True)
    for product in (lamp, mug):
        response = browser.post(
            WISHLIST, {"product_id": product.pk}, content_type="application/json"
        )
        assert response.status_code == 201, response.content
    response = browser.post(
        "/rest/ec/v1/checkout/login",
        {"email": customer.email, "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert sorted(
        WishlistItem.objects.filter(user=customer).values_list("product_id", flat=True)
    ) == sorted([mine.pk, lamp.pk, mug.pk])
    assert not WishlistItem.objects.filter(user__isnull=True).exists()
    nonce = response.json()["nonce"]
    listed = browser.get(WISHLIST, HTTP_X_PLATFORM_NONCE=nonce).json()["items"]
    assert len(listed) == 3


def test_a_logged_in_request_carrying_a_guest_token_merges_too(customer, store_client, lamp):
    guest = APIClient()
    guest.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    token = guest.cookies[CART_COOKIE].value
    account = store_client(customer)
    account.credentials(
        HTTP_AUTHORIZATION=account._credentials["HTTP_AUTHORIZATION"], HTTP_X_CART_ID=token
    )
    assert ids(account) == [lamp.pk]
    assert WishlistItem.objects.get().user == customer


def test_csrf_enforced_browser_gets_json(lamp, customer):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(customer)
    # a session without the nonce counts as logged out: a guest answer, never an HTML page
    response = browser.post(WISHLIST, {"product_id": lamp.pk}, content_type="application/json")
    assert response["Content-Type"].startswith("application/json")
    assert response.status_code in (201, 401, 403)


def test_the_wishlist_is_read_in_a_bounded_number_of_queries(anon, django_assert_max_num_queries):
    for n in range(20):
        product = make_product(title=f"P{n}", regular_price="1.00")
        anon.post(WISHLIST, {"product_id": product.pk}, format="json")
    with django_assert_max_num_queries(3):
        assert len(ids(anon)) == 20


def test_a_replayed_add_answers_the_same_and_sets_the_cookie_again(lamp):
    first = APIClient()
    headers = {"HTTP_IDEMPOTENCY_KEY": "wish-0001-abcdef"}
    response = first.post(WISHLIST, {"product_id": lamp.pk}, format="json", **headers)
    assert response.status_code == 201
    token = response["X-Cart-ID"]
    # the answer was lost: the same client retries without the cookie it never saw
    retry = APIClient()
    replay = retry.post(WISHLIST, {"product_id": lamp.pk}, format="json", **headers)
    assert replay.status_code == 201
    assert replay.json() == response.json()
    assert replay["Idempotent-Replayed"] == "true"
    assert retry.cookies[CART_COOKIE].value == token
    assert WishlistItem.objects.count() == 1


def test_a_purged_cart_session_keeps_its_wishlist_under_the_new_one(anon, lamp, mug):
    anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
    old = anon.cookies[CART_COOKIE].value
    Cart.objects.all().delete()  # the cart session was purged; the browser kept the cookie
    assert ids(anon) == [lamp.pk]
    response = anon.post(WISHLIST, {"product_id": mug.pk}, format="json")
    assert response["X-Cart-ID"] != old
    assert ids(anon) == [mug.pk, lamp.pk]


def test_idle_guest_wishlists_are_purged_by_the_beat(anon, customer, store_client, lamp, mug):
    assert "theme_storefront.purge_stale_wishlists" in {
        entry["task"] for entry in app.conf.beat_schedule.values()
    }
    with time_machine.travel(timezone.now() - timedelta(days=60)):
        anon.post(WISHLIST, {"product_id": lamp.pk}, format="json")
        store_client(customer).post(WISHLIST, {"product_id": lamp.pk}, format="json")
    fresh = APIClient()
    fresh.post(WISHLIST, {"product_id": mug.pk}, format="json")
    assert purge_stale_wishlists.delay().get() == 1
    assert ids(anon) == []
    assert ids(fresh) == [mug.pk]
    assert WishlistItem.objects.filter(user=customer).count() == 1  # accounts' lists stay
    assert purge_stale_wishlists.delay().get() == 0
