"""/search (the catalog's search, per_page 8 by default, capped at 20; the search_results hook)
and /cart/totals (the cart session's totals, as the /cart routes find the cart)."""

import pytest
from rest_framework.test import APIClient

from store.common import hooks
from store.common.cart_session import CART_COOKIE
from tests.store.cart.helpers import add
from tests.store.catalog.factories import CategoryFactory, make_product
from tests.theme.storefront.conftest import BASE, error

pytestmark = pytest.mark.django_db
SEARCH = f"{BASE}/search"
TOTALS = f"{BASE}/cart/totals"


def test_search_finds_products_and_categories(anon):
    make_product(title="Desk lamp", regular_price="10.00")
    make_product(title="Lamp shade", regular_price="5.00")
    make_product(title="Mug", regular_price="4.00")
    make_product(title="Draft lamp", regular_price="4.00", status="draft")
    CategoryFactory(name="Lamps", slug="lamps")
    response = anon.get(SEARCH, {"q": "lamp"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["query"] == "lamp"
    assert body["per_page"] == 8
    assert body["products"]["total"] == 2
    assert {p["title"] for p in body["products"]["items"]} == {"Desk lamp", "Lamp shade"}
    assert set(body["products"]["items"][0]) == {
        "id",
        "title",
        "slug",
        "price",
        "regular_price",
        "sale_price",
        "on_sale",
        "stock_status",
        "image",
    }
    assert [c["name"] for c in body["categories"]["items"]] == ["Lamps"]


def test_per_page_defaults_to_8_and_is_capped_at_20(anon, django_assert_max_num_queries):
    for n in range(25):
        make_product(title=f"Lamp {n}", regular_price="1.00")
    assert len(anon.get(SEARCH, {"q": "lamp"}).json()["products"]["items"]) == 8
    with django_assert_max_num_queries(5):
        body = anon.get(SEARCH, {"q": "lamp", "per_page": 500}).json()
    assert body["per_page"] == 20
    assert len(body["products"]["items"]) == 20
    assert body["products"]["total"] == 25
    assert anon.get(SEARCH, {"q": "lamp", "per_page": "1" + "0" * 40}).json()["per_page"] == 20


@pytest.mark.parametrize(
    "query",
    [
        {},
        {"q": ""},
        {"q": "x" * 201},
        {"q": "a\x00b"},
        {"q": "lamp", "per_page": "0"},
        {"q": "lamp", "per_page": "two"},
    ],
)
def test_bad_queries_are_400(anon, query):
    error(anon.get(SEARCH, query), 400, "invalid_param")


def test_the_search_results_hook_transforms_the_answer(anon):
    make_product(title="Lamp", regular_price="1.00")

    def boost(results, query):
        return {**results, "hooked": query}

    with hooks.filter_added(hooks.SEARCH_RESULTS, boost):
        assert anon.get(SEARCH, {"q": "lamp"}).json()["hooked"] == "lamp"
    assert "hooked" not in anon.get(SEARCH, {"q": "lamp"}).json()


# --- Cart totals --------------------------------------------------------------------------------


def test_totals_of_the_session_cart(anon):
    lamp = make_product(title="Lamp", regular_price="10.00")
    add(anon, lamp.pk, 2)
    response = anon.get(TOTALS)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    cart = response.json()["cart"]
    assert cart["item_count"] == 2
    assert cart["subtotal"] == "20.00"
    assert set(cart) >= {"subtotal", "discount", "shipping", "tax", "total", "coupons"}


def test_totals_follow_the_store_session_rules(anon, store_client, customer):
    lamp = make_product(title="Lamp", regular_price="10.00")
    add(anon, lamp.pk, 1)
    token = anon.cookies[CART_COOKIE].value
    # a cookie-less client hinting the cart by header or query finds it
    hinted = APIClient()
    assert hinted.get(TOTALS, HTTP_X_CART_ID=token).json()["cart"]["item_count"] == 1
    assert hinted.get(TOTALS, {"cart_id": token}).json()["cart"]["item_count"] == 1
    # nobody else's: no cart, zero totals, and no cart is made
    empty = APIClient().get(TOTALS).json()["cart"]
    assert empty["item_count"] == 0
    assert empty["total"] == "0.00"
    # a customer's cart follows the login
    account = store_client(customer)
    add(account, lamp.pk, 3)
    assert account.get(TOTALS).json()["cart"]["item_count"] == 3


def test_totals_are_read_in_a_bounded_number_of_queries(anon, django_assert_max_num_queries):
    for n in range(10):
        add(anon, make_product(title=f"P{n}", regular_price="2.00").pk, 1)
    with django_assert_max_num_queries(12):
        assert anon.get(TOTALS).json()["cart"]["line_count"] == 10
