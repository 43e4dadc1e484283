"""The seven extension points of the spec's Events table, each changing a result."""

from decimal import Decimal

import pytest

from store.common import hooks
from tests.fixtures.store import API
from tests.store.catalog.factories import CategoryFactory, make_product

pytestmark = pytest.mark.django_db


def test_the_registry_has_exactly_the_spec_hooks():
    assert set(hooks.HOOKS) == {
        "ec_cart_item_price",
        "ec_cart_calculated_totals",
        "ec_api_product_response",
        "ec_api_products_response",
        "ec_product_query_args",
        "ec_products_per_page",
        "ec_search_results",
    }
    assert hooks.HOOKS["ec_api_products_response"].parameters == ("data", "args", "total")


def test_unknown_hooks_are_refused():
    with pytest.raises(ValueError, match="Unknown store hook"):
        hooks.add_filter("ec_made_up", lambda value: value)
    with pytest.raises(ValueError, match="Unknown store hook"):
        hooks.apply_filters("ec_made_up", 1)


def test_callbacks_run_by_priority_then_registration_order():
    calls = []

    def first(value):
        calls.append("first")
        return value + 1

    def second(value):
        calls.append("second")
        return value * 10

    def early(value):
        calls.append("early")
        return value - 1

    with (
        hooks.filter_added(hooks.PRODUCTS_PER_PAGE, first),
        hooks.filter_added(hooks.PRODUCTS_PER_PAGE, second),
        hooks.filter_added(hooks.PRODUCTS_PER_PAGE, early, priority=1),
    ):
        assert hooks.apply_filters(hooks.PRODUCTS_PER_PAGE, 5) == ((5 - 1) + 1) * 10
    assert calls == ["early", "first", "second"]
    assert hooks.apply_filters(hooks.PRODUCTS_PER_PAGE, 5) == 5  # removed again


def double_price(price, item, cart):
    return price * 2


def test_hooks_listed_in_settings_are_loaded(settings, monkeypatch):
    settings.STORE_HOOKS = {"ec_cart_item_price": ["tests.store.common.test_hooks.double_price"]}
    monkeypatch.setattr(hooks, "_settings_loaded", False)
    monkeypatch.setattr(hooks, "_callbacks", {name: [] for name in hooks.HOOKS})
    assert hooks.apply_filters(hooks.CART_ITEM_PRICE, Decimal("4.50"), {}, {}) == Decimal("9.00")


def test_cart_item_price_changes_an_items_price():
    def member_discount(price, item, cart):
        return price - Decimal("1.00") if cart.get("member") else price

    with hooks.filter_added(hooks.CART_ITEM_PRICE, member_discount):
        assert hooks.apply_filters(
            hooks.CART_ITEM_PRICE, Decimal("10.00"), {"id": "x"}, {"member": True}
        ) == Decimal("9.00")


def test_cart_calculated_totals_changes_the_totals():
    def free_shipping(totals, cart):
        return {**totals, "shipping": "0.00"}

    with hooks.filter_added(hooks.CART_CALCULATED_TOTALS, free_shipping):
        totals = hooks.apply_filters(hooks.CART_CALCULATED_TOTALS, {"shipping": "5.00"}, {})
    assert totals == {"shipping": "0.00"}


def test_api_product_response_changes_single_reads_and_list_entries(anon):
    product = make_product(title="Lamp")

    def badge(data, product):
        return {**data, "badge": f"new:{product.pk}"}

    with hooks.filter_added(hooks.API_PRODUCT_RESPONSE, badge):
        single = anon.get(f"{API}/products/{product.pk}").json()
        listed = anon.get(f"{API}/products").json()["data"][0]
        by_slug = anon.get(f"{API}/products/slug/lamp").json()
    assert single["badge"] == listed["badge"] == by_slug["badge"] == f"new:{product.pk}"
    assert "badge" not in anon.get(f"{API}/products/{product.pk}").json()


def test_api_products_response_changes_the_list_array(anon):
    make_product(title="A")
    make_product(title="B")
    seen = {}

    def titles_only(data, args, total):
        seen.update(total=total, status=args["status"])
        return [{"title": entry["title"]} for entry in data]

    with hooks.filter_added(hooks.API_PRODUCTS_RESPONSE, titles_only):
        body = anon.get(f"{API}/products", {"orderby": "title", "order": "asc"}).json()
    assert body["data"] == [{"title": "A"}, {"title": "B"}]
    assert seen == {"total": 2, "status": "active"}


def test_product_query_args_changes_the_query(anon):
    shoes = CategoryFactory(slug="shoes")
    make_product(title="Boot", category_ids=[shoes.pk])
    make_product(title="Hat")

    def only_shoes(args):
        return {**args, "category": "shoes"}

    with hooks.filter_added(hooks.PRODUCT_QUERY_ARGS, only_shoes):
        body = anon.get(f"{API}/products").json()
    assert [p["title"] for p in body["data"]] == ["Boot"]
    assert len(anon.get(f"{API}/products").json()["data"]) == 2


def test_products_per_page_changes_the_default_page_size(anon):
    for n in range(5):
        make_product(title=f"P{n}")

    with hooks.filter_added(hooks.PRODUCTS_PER_PAGE, lambda default: 2):
        body = anon.get(f"{API}/products").json()
        explicit = anon.get(f"{API}/products", {"per_page": 4}).json()
    assert body["meta"]["per_page"] == 2
    assert len(body["data"]) == 2
    assert body["meta"]["total_pages"] == 3
    assert explicit["meta"]["per_page"] == 4  # only the default changes


def test_products_per_page_gets_the_store_setting_as_default(anon, settings):
    from store.settings import services

    services.settings_update(section="products", values={"products_per_page": 7})
    seen = []
    with hooks.filter_added(
        hooks.PRODUCTS_PER_PAGE, lambda default: seen.append(default) or default
    ):
        assert anon.get(f"{API}/products").json()["meta"]["per_page"] == 7
    assert seen == [7]


def test_search_results_changes_the_search_output(anon):
    make_product(title="Red lamp")

    def add_suggestion(results, query):
        return {**results, "suggestion": query.upper()}

    with hooks.filter_added(hooks.SEARCH_RESULTS, add_suggestion):
        body = anon.get(f"{API}/search", {"q": "lamp"}).json()
    assert body["suggestion"] == "LAMP"
    assert body["products"]["total"] == 1
