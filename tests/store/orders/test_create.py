"""POST /orders: totals by the server, snapshots, customers, stock taken atomically."""

import re

import pytest

from store.customers.models import Customer
from store.inventory.models import StockMovement
from store.orders.models import Order, OrderItem
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error
from tests.store.catalog.factories import AttributeFactory, TermFactory, make_product, make_variant
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, stock_of, stocked

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"


def post(client, body):
    return client.post(ORDERS, body, format="json")


def test_create_with_the_defaults(manager_client, manager):
    lamp = stocked(title="Lamp", price="12.50", sku="LAMP-1", stock=5)
    response = post(manager_client, {"items": [line(lamp, 2)]})
    assert response.status_code == 201, response.content
    body = response.json()
    order = Order.objects.get()
    assert body["id"] == order.pk
    assert body["order_number"] == f"EC-{order.pk:06d}"
    assert re.fullmatch(r"ec_order_[A-Za-z0-9_-]{32}", body["order_key"])
    assert (body["status"], body["payment_status"], body["fulfillment_status"]) == (
        "pending",
        "unpaid",
        "unfulfilled",
    )
    assert body["currency"] == "EUR"  # the store's currency setting
    assert (body["subtotal"], body["tax_total"], body["total"], body["item_count"]) == (
        "25.00",
        "0.00",
        "25.00",
        2,
    )
    assert body["customer"] is None
    assert body["items"] == [
        {
            "id": order.items.get().pk,
            "order_id": order.pk,
            "product_id": lamp.pk,
            "variant_id": None,
            "title": "Lamp",
            "sku": "LAMP-1",
            "attributes": [],
            "options": {},
            "quantity": 2,
            "price": "12.50",
            "subtotal": "25.00",
            "tax": "0.00",
            "total": "25.00",
            "restocked": 0,
        }
    ]
    assert [(h["field"], h["from"], h["to"], h["actor"]) for h in body["status_history"]] == [
        ("status", None, "pending", manager.email)
    ]
    assert stock_of(lamp) == 3


def test_totals_are_the_servers_and_not_taken_from_the_body(manager_client):
    lamp = stocked(price="10.00", stock=5)
    refused = error(
        post(manager_client, {"items": [line(lamp, 1)], "total": "1.00", "subtotal": "1.00"}),
        400,
        "invalid_param",
    )
    assert set(refused["data"]["params"]) == {"total", "subtotal"}
    assert not Order.objects.exists()
    assert stock_of(lamp) == 5


def test_create_with_every_field(manager_client):
    customer = CustomerFactory()
    lamp = stocked(title="Lamp", price="10.00")
    address = {
        "first_name": "Ana",
        "last_name": "Lee",
        "company": "Lee Ltd",
        "address_1": "Main St 1",
        "address_2": "Floor 2",
        "city": "Athens",
        "state": "gr-i",  # Attica: its ISO 3166-2 code, with or without the country
        "postcode": "10563",
        "country": "gr",
        "email": "ana@example.com",
        "phone": "+30 210 1234567",
    }
    body = post(
        manager_client,
        {
            "customer_id": customer.pk,
            "status": "processing",
            "currency": "usd",
            "payment_method": "card",
            "payment_method_title": "Credit card",
            "shipping_method": "courier",
            "shipping_method_title": "Courier",
            "customer_note": "Ring twice.",
            "admin_note": "VIP",
            "billing_address": address,
            "shipping_address": {**address, "city": "Patras"},
            "items": [line(lamp, 3, price="9.00", tax="6.48", title="Desk lamp", sku="X-1")],
            "shipping_total": "5.00",
            "shipping_tax": "1.20",
            "discount_total": 2,
        },
    ).json()
    assert body["customer_id"] == customer.pk
    assert body["customer"]["email"] == customer.email
    assert (body["status"], body["currency"]) == ("processing", "USD")
    # `state` is the other name of `region`, answered as `region`
    expected = {key: value for key, value in address.items() if key != "state"}
    assert body["billing_address"] == {**expected, "region": "I", "country": "GR"}
    assert body["shipping_address"]["city"] == "Patras"
    assert (body["payment_method"], body["payment_method_title"]) == ("card", "Credit card")
    assert (body["shipping_method"], body["shipping_method_title"]) == ("courier", "Courier")
    assert (body["customer_note"], body["admin_note"]) == ("Ring twice.", "VIP")
    item = body["items"][0]
    assert (item["title"], item["sku"], item["price"], item["tax"], item["total"]) == (
        "Desk lamp",
        "X-1",
        "9.00",
        "6.48",
        "33.48",
    )
    assert {
        key: body[key]
        for key in ("subtotal", "discount_total", "shipping_total", "shipping_tax", "tax_total")
    } == {
        "subtotal": "27.00",
        "discount_total": "2.00",
        "shipping_total": "5.00",
        "shipping_tax": "1.20",
        "tax_total": "7.68",
    }
    assert body["total"] == "37.68"  # 27 - 2 + 5 + 7.68
    assert body["balance_due"] == "37.68"


def test_snapshots_of_a_variant(manager_client):
    colour = AttributeFactory(name="Colour")
    red = TermFactory(attribute=colour, name="Red")
    shirt = make_product(title="Shirt", type="variable", regular_price="20.00")
    variant = make_variant(shirt, red, sku="SH-R", regular_price="18.00", stock_quantity=4)
    body = post(manager_client, {"items": [line(variant, 1)]}).json()
    item = body["items"][0]
    assert (item["product_id"], item["variant_id"], item["sku"], item["price"]) == (
        shirt.pk,
        variant.pk,
        "SH-R",
        "18.00",
    )
    assert item["title"] == variant.title
    assert item["attributes"] == [{"attribute": "Colour", "value": "Red"}]
    # Later catalog changes do not change the order.
    manager_client.patch(
        f"{API}/variants/{variant.pk}", {"regular_price": "30.00", "sku": "NEW"}, format="json"
    )
    item = manager_client.get(f"{ORDERS}/{body['id']}").json()["items"][0]
    assert (item["sku"], item["price"]) == ("SH-R", "18.00")
    assert stock_of(variant) == 3


def test_unit_price_is_accepted_for_price_and_sale_prices_are_the_default(manager_client):
    cap = stocked(title="Cap", price="18.00", sale_price="14.50")
    mug = stocked(title="Mug", price="9.00")
    body = post(
        manager_client, {"items": [line(cap, 1), {"product_id": mug.pk, "unit_price": "7.25"}]}
    ).json()
    assert [i["price"] for i in body["items"]] == ["14.50", "7.25"]
    assert body["total"] == "21.75"


def test_billing_and_shipping_are_accepted_for_the_addresses_and_find_the_customer(
    manager_client,
):
    user = UserFactory(email="ana@example.com", name="Ana Lee")
    lamp = stocked()
    body = post(
        manager_client,
        {
            "items": [line(lamp)],
            "billing": {"email": "ana@example.com", "first_name": "Ana", "city": "Athens"},
            "shipping": {"city": "Patras"},
        },
    ).json()
    assert (body["billing_address"]["city"], body["shipping_address"]["city"]) == (
        "Athens",
        "Patras",
    )
    customer = Customer.objects.get()
    assert (customer.email, customer.user, customer.first_name) == ("ana@example.com", user, "Ana")
    assert body["customer_id"] == customer.pk
    again = post(manager_client, {"items": [line(lamp)], "billing": {"email": "ANA@example.com"}})
    assert again.json()["customer_id"] == customer.pk
    assert Customer.objects.count() == 1


def test_an_empty_order_is_allowed_and_items_can_follow(manager_client):
    body = post(manager_client, {}).json()
    assert (body["items"], body["total"], body["status"]) == ([], "0.00", "pending")


def test_the_store_currency_setting_is_the_default(manager_client):
    settings_services.settings_update(section="currency", values={"currency": "GBP"})
    assert post(manager_client, {}).json()["currency"] == "GBP"


@pytest.mark.parametrize(
    ("body", "params"),
    [
        ({"status": "shipped-ish"}, {"status"}),
        ({"currency": "EURO"}, {"currency"}),
        ({"customer_id": "x"}, {"customer_id"}),
        ({"items": "lamp"}, {"items"}),
        ({"items": [{"quantity": 1}]}, {"items.0.product_id"}),
        ({"items": [{"product_id": 1, "quantity": 0}]}, {"items.0.quantity"}),
        ({"items": [{"product_id": 1, "quantity": 1.5}]}, {"items.0.quantity"}),
        ({"items": [{"product_id": 1, "price": "-1"}]}, {"items.0.price"}),
        ({"billing_address": {"country": "XX"}}, {"billing_address.country"}),
        ({"billing_address": {"email": "nope"}}, {"billing_address.email"}),
        # The store's one address rule (as at the checkout): the state is an ISO 3166-2
        # subdivision of its country, the postcode letters, digits, spaces and dashes.
        ({"billing_address": {"country": "GR", "state": "Attica"}}, {"billing_address.state"}),
        ({"shipping_address": {"state": "I"}}, {"shipping_address.country"}),
        ({"shipping_address": {"postcode": "10431!"}}, {"shipping_address.postcode"}),
        ({"shipping_address": {"city": None}}, {"shipping_address.city"}),
        ({"shipping_total": "-5"}, {"shipping_total"}),
        ({"discount_total": "abc"}, {"discount_total"}),
    ],
)
def test_invalid_values_are_400_naming_each_and_create_nothing(manager_client, body, params):
    stocked()
    payload = error(post(manager_client, body), 400, "invalid_param")
    assert set(payload["data"]["params"]) == params
    assert not Order.objects.exists()


def test_unknown_references_are_named(manager_client):
    lamp = stocked()
    shirt = make_product(title="Shirt", type="variable")
    make_variant(shirt, TermFactory())
    other = make_variant(make_product(title="Other", type="variable"), TermFactory())
    unpriced = make_product(title="Unpriced", regular_price=None)
    payload = error(
        post(
            manager_client,
            {
                "customer_id": 999,
                "items": [
                    line(lamp),
                    {"product_id": 999},
                    {"product_id": shirt.pk},
                    {"product_id": shirt.pk, "variant_id": other.pk},
                    {"product_id": unpriced.pk},
                ],
            },
        ),
        400,
        "invalid_param",
    )
    assert set(payload["data"]["params"]) == {
        "customer_id",
        "items.1.product_id",
        "items.2.variant_id",
        "items.3.variant_id",
        "items.4.price",
    }
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10


def test_a_discount_larger_than_the_order_is_refused(manager_client):
    lamp = stocked(price="10.00")
    payload = error(post(manager_client, {"items": [line(lamp)], "discount_total": "10.01"}), 400)
    assert set(payload["data"]["params"]) == {"discount_total"}
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10


def test_an_order_that_would_take_more_than_is_in_stock_is_refused(manager_client):
    lamp = stocked(title="Lamp", stock=3)
    mug = stocked(title="Mug", stock=5)
    payload = error(
        post(manager_client, {"items": [line(mug, 2), line(lamp, 4)]}), 409, "insufficient_stock"
    )
    assert "Lamp" in payload["message"]
    assert payload["data"]["params"] == {"items.1.quantity": "Only 3 in stock."}
    assert not Order.objects.exists()
    assert not OrderItem.objects.exists()
    assert (stock_of(lamp), stock_of(mug)) == (3, 5)
    assert StockMovement.objects.filter(reference_type="order").count() == 0


def test_two_lines_of_one_item_are_checked_together(manager_client):
    lamp = stocked(stock=3)
    error(
        post(manager_client, {"items": [line(lamp, 2), line(lamp, 2)]}), 409, "insufficient_stock"
    )
    assert post(manager_client, {"items": [line(lamp, 2), line(lamp, 1)]}).status_code == 201
    assert stock_of(lamp) == 0


def test_out_of_stock_items_are_refused(manager_client):
    lamp = stocked(stock=0)
    payload = error(post(manager_client, {"items": [line(lamp)]}), 409, "insufficient_stock")
    assert payload["data"]["params"] == {"items.0.quantity": "Out of stock."}


def test_backorders_are_accepted_when_the_product_allows_them(manager_client):
    lamp = stocked(stock=1, allow_backorders=True)
    assert post(manager_client, {"items": [line(lamp, 3)]}).status_code == 201
    lamp.refresh_from_db()
    assert (lamp.stock_quantity, lamp.stock_status) == (-2, "on_backorder")


def test_untracked_products_move_no_stock(manager_client):
    lamp = make_product(title="Lamp")  # no tracked inventory
    assert post(manager_client, {"items": [line(lamp, 50)]}).status_code == 201
    assert not StockMovement.objects.exists()


def test_an_order_created_in_a_terminal_status_holds_no_stock(manager_client):
    lamp = stocked(stock=1)
    body = post(manager_client, {"status": "cancelled", "items": [line(lamp, 5)]}).json()
    assert body["status"] == "cancelled"
    assert stock_of(lamp) == 1


def test_order_numbers_are_unique_and_follow_the_ids(manager_client):
    numbers = [post(manager_client, {}).json()["order_number"] for _ in range(3)]
    assert len(set(numbers)) == 3
    assert numbers == [
        f"EC-{pk:06d}" for pk in Order.objects.order_by("pk").values_list("pk", flat=True)
    ]


def test_create_needs_the_orders_capability(anon, customer_client, store_client):
    from tests.fixtures.store import grant

    lamp = stocked()
    body = {"items": [line(lamp)]}
    error(post(anon, body), 401, "not_logged_in")
    error(post(customer_client, body), 403, "insufficient_capability")
    products_only = grant(UserFactory(), "ec_manage_products")
    error(post(store_client(products_only), body), 403, "insufficient_capability")
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10
    orders_only = grant(UserFactory(), "ec_manage_orders")
    administrator = grant(UserFactory(), "manage_options")
    assert post(store_client(orders_only), body).status_code == 201
    assert post(store_client(administrator), body).status_code == 201
