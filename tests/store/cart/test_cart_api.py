"""The cart routes: items, quantities, stock, limits, clear, summary, hooks and notices."""

from decimal import Decimal

import pytest

from store.cart.models import Cart, CartItem
from store.common import hooks
from store.settings import services as settings_services
from tests.fixtures.store import error
from tests.store.cart.helpers import CART, add, cart_of, token_of
from tests.store.catalog.factories import TermFactory, make_product, make_variant
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def lamp():
    return make_product(title="Lamp", sku="LAMP", regular_price="19.90")


@pytest.fixture
def shirt():
    product = make_product(title="Shirt", type="variable", regular_price="25.00")
    red, blue = TermFactory(name="Red"), TermFactory(name="Blue")
    return {
        "product": product,
        "red": make_variant(product, red, regular_price="25.00", sku="SHIRT-R"),
        "blue": make_variant(product, blue, regular_price="27.50", sale_price="20.00"),
    }


def test_an_empty_cart_without_a_session_makes_nothing(anon):
    response = anon.get(CART)
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    body = response.json()
    assert set(body) == {"cart"}
    cart = body["cart"]
    assert cart["items"] == []
    assert cart["item_count"] == 0
    assert (cart["subtotal"], cart["shipping"], cart["tax"], cart["total"]) == (
        "0.00",
        "0.00",
        "0.00",
        "0.00",
    )
    assert cart["coupons"] == []
    assert cart["currency"] == "EUR"
    assert "Set-Cookie" not in response.headers
    assert not Cart.objects.exists()


def test_adding_an_item_makes_the_cart_and_answers_it(anon, lamp):
    image = media_row()
    lamp.featured_image = image
    lamp.save()
    response = add(anon, lamp.pk, 2)
    assert response.status_code == 200, response.content
    cart = response.json()["cart"]
    item = cart["items"][0]
    assert item == {
        "id": item["id"],
        "product_id": lamp.pk,
        "variant_id": None,
        "title": "Lamp",
        "sku": "LAMP",
        "price": "19.90",
        "regular_price": "19.90",
        "on_sale": False,
        "quantity": 2,
        "total": "39.80",
        "image": image.url,
        "options": {},
        "stock_status": "in_stock",
        "max_quantity": 100,  # cart.max_quantity (was 9999)
    }
    assert len(item["id"]) == 32
    assert cart["item_count"] == 2
    assert (cart["subtotal"], cart["total"]) == ("39.80", "39.80")
    stored = Cart.objects.get()
    assert token_of(anon) == stored.token
    assert response["X-Cart-ID"] == stored.token
    assert stored.items.get().quantity == 2


def test_product_id_is_required(anon):
    body = error(anon.post(f"{CART}/items", {"quantity": 2}, format="json"), 400, "invalid_param")
    assert "product_id" in body["data"]["params"]
    error(anon.post(f"{CART}/items", {"product_id": "x"}, format="json"), 400, "invalid_param")
    assert not Cart.objects.exists()


@pytest.mark.parametrize("quantity", [0, -3, None])
def test_quantities_below_one_become_one(anon, lamp, quantity):
    response = add(anon, lamp.pk, quantity)
    assert response.json()["cart"]["items"][0]["quantity"] == 1


def test_a_fractional_or_boolean_quantity_is_refused(anon, lamp):
    for bad in (1.5, True, "many"):
        error(add(anon, lamp.pk, bad), 400, "invalid_param")
    assert not CartItem.objects.exists()


def test_the_same_product_and_options_merge_into_one_line(anon, lamp):
    add(anon, lamp.pk, 1, options={"gift": True, "note": "Hi"})
    response = add(anon, lamp.pk, 2, options={"note": "Hi", "gift": True})
    items = response.json()["cart"]["items"]
    assert [(i["quantity"], i["options"]) for i in items] == [(3, {"gift": True, "note": "Hi"})]
    response = add(anon, lamp.pk, 1, options={"note": "Other"})
    items = response.json()["cart"]["items"]
    assert [i["quantity"] for i in items] == [3, 1]
    assert items[0]["id"] != items[1]["id"]
    assert CartItem.objects.count() == 2


def test_bad_options_are_refused(anon, lamp):
    for options in (
        ["a"],
        {"": 1},
        {"a": {"nested": 1}},
        {"a": "x" * 201},
        {str(i): 1 for i in range(21)},
    ):
        error(add(anon, lamp.pk, 1, options=options), 400, "invalid_param")
    assert not CartItem.objects.exists()


def test_unknown_draft_or_archived_products_are_404(anon, lamp):
    error(add(anon, 999_999), 404, "product_not_found")
    draft = make_product(title="Draft", status="draft")
    archived = make_product(title="Old", status="archived")
    error(add(anon, draft.pk), 404, "product_not_found")
    error(add(anon, archived.pk), 404, "product_not_found")
    assert not Cart.objects.exists()


def test_a_variable_product_needs_one_of_its_enabled_variants(anon, shirt):
    product = shirt["product"]
    error(add(anon, product.pk), 400, "variant_required")
    other = make_product(title="Other", type="variable")
    foreign = make_variant(other, TermFactory())
    error(add(anon, product.pk, variant_id=foreign.pk), 404, "variant_not_found")
    shirt["red"].enabled = False
    shirt["red"].save()
    error(add(anon, product.pk, variant_id=shirt["red"].pk), 404, "variant_not_found")
    assert not Cart.objects.exists()
    response = add(anon, product.pk, 2, variant_id=shirt["blue"].pk)
    item = response.json()["cart"]["items"][0]
    assert (item["variant_id"], item["price"], item["on_sale"], item["total"]) == (
        shirt["blue"].pk,
        "20.00",
        True,
        "40.00",
    )
    assert item["title"] == shirt["blue"].title


def test_a_simple_product_takes_no_variant(anon, lamp, shirt):
    error(add(anon, lamp.pk, variant_id=shirt["red"].pk), 400, "not_variable_product")


def test_a_product_without_a_price_cannot_be_added(anon):
    free = make_product(title="Priceless", regular_price=None)
    error(add(anon, free.pk), 400, "product_not_purchasable")


def test_a_tracked_product_cannot_go_past_its_stock(anon):
    product = make_product(title="Vase", track_inventory=True, stock_quantity=3)
    assert add(anon, product.pk, 2).status_code == 200
    body = error(add(anon, product.pk, 2), 400, "insufficient_stock")
    assert "Only 3" in body["message"]
    assert CartItem.objects.get().quantity == 2
    item = add(anon, product.pk, 1).json()["cart"]["items"][0]
    assert (item["quantity"], item["max_quantity"]) == (3, 3)


def test_backorders_lift_the_stock_limit(anon):
    product = make_product(
        title="Vase", track_inventory=True, stock_quantity=1, allow_backorders=True
    )
    assert add(anon, product.pk, 5).json()["cart"]["items"][0]["quantity"] == 5


def test_out_of_stock_items_cannot_be_added(anon):
    tracked = make_product(title="Gone", track_inventory=True, stock_quantity=0)
    manual = make_product(title="Marked", stock_status="out_of_stock")
    error(add(anon, tracked.pk), 400, "out_of_stock")
    error(add(anon, manual.pk), 400, "out_of_stock")
    assert not Cart.objects.exists()


def test_a_variants_own_stock_counts(anon, shirt):
    red = shirt["red"]
    red.track_inventory, red.stock_quantity = True, 1
    red.save()
    error(add(anon, shirt["product"].pk, 2, variant_id=red.pk), 400, "insufficient_stock")


def test_cart_limits_come_from_the_settings(anon, lamp):
    settings_services.settings_update(section="cart", values={"max_quantity": 5, "max_lines": 1})
    error(add(anon, lamp.pk, 6), 400, "cart_item_quantity_limit")
    assert add(anon, lamp.pk, 5).status_code == 200
    other = make_product(title="Other")
    error(add(anon, other.pk), 400, "cart_full")
    assert CartItem.objects.count() == 1


def test_changing_a_quantity(anon, lamp):
    item_id = add(anon, lamp.pk, 1).json()["cart"]["items"][0]["id"]
    for method in ("patch", "put"):
        response = getattr(anon, method)(f"{CART}/items/{item_id}", {"quantity": 4}, format="json")
        assert response.status_code == 200, response.content
        assert response.json()["cart"]["items"][0]["quantity"] == 4
    response = anon.patch(f"{CART}/items/{item_id}", {"quantity": 0}, format="json")
    assert response.json()["cart"]["items"][0]["quantity"] == 1
    error(anon.patch(f"{CART}/items/{item_id}", {}, format="json"), 400, "invalid_param")


def test_raising_a_quantity_past_the_stock_is_refused_and_lowering_is_allowed(anon):
    product = make_product(title="Vase", track_inventory=True, stock_quantity=3)
    item_id = add(anon, product.pk, 3).json()["cart"]["items"][0]["id"]
    error(
        anon.patch(f"{CART}/items/{item_id}", {"quantity": 4}, format="json"),
        400,
        "insufficient_stock",
    )
    assert CartItem.objects.get().quantity == 3
    product.stock_quantity = 1
    product.save()
    response = anon.patch(f"{CART}/items/{item_id}", {"quantity": 2}, format="json")
    assert response.json()["cart"]["items"][0]["quantity"] == 2


def test_removing_an_item(anon, lamp):
    item_id = add(anon, lamp.pk, 1).json()["cart"]["items"][0]["id"]
    add(anon, make_product(title="Mug", regular_price="5.00").pk)
    response = anon.delete(f"{CART}/items/{item_id}")
    assert response.status_code == 200
    assert [i["title"] for i in response.json()["cart"]["items"]] == ["Mug"]
    error(anon.delete(f"{CART}/items/{item_id}"), 404, "cart_item_not_found")


def test_an_unknown_item_is_404_and_changes_nothing(anon, lamp):
    error(
        anon.patch(f"{CART}/items/{'a' * 32}", {"quantity": 2}, format="json"),
        404,
        "cart_item_not_found",
    )
    add(anon, lamp.pk, 1)
    error(
        anon.patch(f"{CART}/items/{'a' * 32}", {"quantity": 2}, format="json"),
        404,
        "cart_item_not_found",
    )
    error(anon.delete(f"{CART}/items/nothing"), 404, "cart_item_not_found")
    assert CartItem.objects.get().quantity == 1


def test_another_carts_item_is_not_reachable(anon, api_client, lamp):
    item_id = add(anon, lamp.pk, 1).json()["cart"]["items"][0]["id"]
    add(api_client, lamp.pk, 1)  # another shopper, the same line token
    api_client.cookies.clear()
    error(api_client.delete(f"{CART}/items/{item_id}"), 404, "cart_item_not_found")
    assert CartItem.objects.count() == 2


def test_clear_empties_items_and_coupons_but_keeps_the_address(anon, lamp):
    add(anon, lamp.pk, 2)
    anon.post(f"{CART}/shipping-address", {"country": "DE"}, format="json")
    response = anon.post(f"{CART}/clear")
    assert response.status_code == 200
    cart = response.json()["cart"]
    assert (cart["items"], cart["item_count"], cart["total"]) == ([], 0, "0.00")
    assert cart["shipping_address"] == {"country": "DE", "region": "", "postcode": ""}
    assert not CartItem.objects.exists()


def test_clear_without_a_cart_answers_an_empty_one(anon):
    response = anon.post(f"{CART}/clear")
    assert response.status_code == 200
    assert response.json()["cart"]["items"] == []
    assert not Cart.objects.exists()


def test_summary_is_light(anon, lamp):
    add(anon, lamp.pk, 2)
    add(anon, make_product(title="Mug", regular_price="5.00").pk, 1)
    body = anon.get(f"{CART}/summary").json()
    assert set(body) == {"cart"}
    summary = body["cart"]
    assert "items" not in summary
    assert (summary["item_count"], summary["line_count"]) == (3, 2)
    assert (summary["subtotal"], summary["total"]) == ("44.80", "44.80")


def test_the_item_price_hook_changes_prices(anon, lamp):
    seen = []

    def half(price, item, cart):
        seen.append((type(price), item.product_id, cart.pk))
        return price / 2

    with hooks.filter_added(hooks.CART_ITEM_PRICE, half):
        cart = add(anon, lamp.pk, 2).json()["cart"]
    assert (cart["items"][0]["price"], cart["items"][0]["total"], cart["total"]) == (
        "9.95",
        "19.90",
        "19.90",
    )
    assert seen[0][0] is Decimal
    assert seen[0][1] == lamp.pk
    assert cart_of(anon)["items"][0]["price"] == "19.90"


def test_a_negative_hook_price_counts_as_zero(anon, lamp):
    with hooks.filter_added(hooks.CART_ITEM_PRICE, lambda price, item, cart: Decimal("-5")):
        cart = add(anon, lamp.pk, 1).json()["cart"]
    assert (cart["items"][0]["price"], cart["total"]) == ("0.00", "0.00")


def test_the_totals_hook_changes_the_final_totals(anon, lamp):
    def fee(totals, cart):
        assert isinstance(cart, Cart)
        return {**totals, "total": totals["total"] + Decimal("1.50")}

    with hooks.filter_added(hooks.CART_CALCULATED_TOTALS, fee):
        cart = add(anon, lamp.pk, 1).json()["cart"]
    assert (cart["subtotal"], cart["total"]) == ("19.90", "21.40")


def test_a_line_that_can_no_longer_be_bought_is_removed_with_a_notice(anon, lamp):
    add(anon, lamp.pk, 1)
    mug = make_product(title="Mug", regular_price="5.00")
    add(anon, mug.pk, 1)
    lamp.status = "archived"
    lamp.save()
    cart = cart_of(anon)
    assert [i["title"] for i in cart["items"]] == ["Mug"]
    assert cart["notices"] == [
        {
            "code": "item_removed",
            "message": "Lamp was removed from your cart: it can no longer be bought.",
        }
    ]
    assert cart["total"] == "5.00"
    assert CartItem.objects.count() == 1
    assert cart_of(anon)["notices"] == []


def test_a_disabled_variant_line_is_removed(anon, shirt):
    add(anon, shirt["product"].pk, 1, variant_id=shirt["red"].pk)
    shirt["red"].enabled = False
    shirt["red"].save()
    assert cart_of(anon)["items"] == []


def test_reading_the_cart_costs_a_fixed_number_of_queries(anon, django_assert_max_num_queries):
    for n in range(3):
        add(anon, make_product(title=f"P{n}", regular_price="3.00").pk, 1)
    with django_assert_max_num_queries(3):
        three = anon.get(CART)
    for n in range(3, 12):
        add(anon, make_product(title=f"P{n}", regular_price="3.00").pk, 1)
    with django_assert_max_num_queries(3):
        twelve = anon.get(CART)
    assert len(three.json()["cart"]["items"]) == 3
    assert len(twelve.json()["cart"]["items"]) == 12


def test_a_process_copy_of_a_pricing_table_is_dropped_when_its_version_changes():
    from store.common.cache import VersionedCache, cached_copy

    family = VersionedCache("test_family")
    loads = []

    def load():
        loads.append(1)
        return len(loads)

    assert cached_copy(family, "all", load) == 1
    assert cached_copy(family, "all", load) == 1  # this process's copy
    family.bump()
    assert cached_copy(family, "all", load) == 2
    assert loads == [1, 1]


def test_a_process_copy_lasts_no_longer_than_the_cache_lifetime(settings):
    import time_machine as tm

    from store.common.cache import VersionedCache, cached_copy

    family = VersionedCache("test_lifetime")
    loads = []

    def load():
        loads.append(1)
        return len(loads)

    settings.STORE_CATALOG_CACHE_SECONDS = 60
    with tm.travel(0, tick=False) as clock:
        assert cached_copy(family, "all", load) == 1
        from django.core.cache import cache

        cache.delete(f"store:test_lifetime:{family.version()}:all")  # as if the entry expired
        clock.shift(30)
        assert cached_copy(family, "all", load) == 1
        clock.shift(31)
        assert cached_copy(family, "all", load) == 2
    settings.STORE_CATALOG_CACHE_SECONDS = 0
    family.bump()
    assert cached_copy(family, "all", load) == 3
    assert cached_copy(family, "all", load) == 4  # no caching at all
