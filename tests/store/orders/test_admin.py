"""The admin of orders, customers and stock: pages render; writes go through the services."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from store.catalog.models import Product
from store.common.capabilities import SHOP_MANAGER_ROLE
from store.customers.models import Customer
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.orders import services
from store.orders.models import Order, OrderStatusChange
from tests.admin_forms import csrf_client, post_form
from tests.store.catalog.factories import TermFactory, make_product, make_variant
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, on_commit, stock_of, stocked

pytestmark = pytest.mark.django_db


@pytest.fixture
def order():
    lamp = stocked(title="Desk lamp", sku="LAMP-A", stock=10)
    order = make_order(line(lamp, 2), customer=CustomerFactory(email="ana@example.com"))
    services.payment_create(order_id=order.pk, fields={"amount": "5.00", "transaction_id": "tx-9"})
    services.shipment_create(order_id=order.pk, fields={"tracking_number": "TRK-1"})
    return order


@pytest.mark.parametrize(
    "model", [Order, Customer, Warehouse, StockLevel, StockMovement], ids=lambda m: m.__name__
)
def test_changelists_search_and_change_pages(admin_client, order, model):
    meta = model._meta
    changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    assert admin_client.get(changelist, {"q": "a"}).status_code == 200
    obj = model.objects.first()
    assert (
        admin_client.get(
            reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
        ).status_code
        == 200
    )


def test_the_order_page_shows_items_payments_shipments_and_history(admin_client, order):
    html = admin_client.get(
        reverse("admin:store_orders_order_change", args=[order.pk])
    ).content.decode()
    for text in ("Desk lamp", "LAMP-A", "tx-9", "TRK-1", "2 x item", "partially_paid"):
        assert text in html, text


def test_orders_are_not_added_in_the_admin(admin_client):
    assert admin_client.get(reverse("admin:store_orders_order_add")).status_code == 403


def test_status_actions_go_through_the_services(admin_client, order):
    lamp = Product.objects.get(sku="LAMP-A")
    url = reverse("admin:store_orders_order_changelist")
    with on_commit():
        admin_client.post(url, {"action": "mark_cancelled", "_selected_action": [order.pk]})
    order.refresh_from_db()
    assert order.status == "cancelled"
    assert stock_of(lamp) == 10
    change = OrderStatusChange.objects.filter(order=order, field="status").last()
    assert (change.to_value, change.source) == ("cancelled", "admin")
    response = admin_client.post(
        url, {"action": "mark_completed", "_selected_action": [order.pk]}, follow=True
    )
    assert "cannot move from cancelled to completed" in response.content.decode()
    order.refresh_from_db()
    assert order.status == "cancelled"


def test_the_change_form_saves_through_the_service(admin_user, order):
    browser = csrf_client(admin_user)
    url = reverse("admin:store_orders_order_change", args=[order.pk])
    response = post_form(
        browser,
        url,
        billing_city="Athens",
        billing_country="GR",
        payment_method="card",
        admin_note="Checked by phone",
        shipping_total="3.00",
        discount_total="1.00",
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    order.refresh_from_db()
    assert (order.admin_note, str(order.total)) == ("Checked by phone", "22.00")
    assert order.billing_address == {"city": "Athens", "country": "GR"}
    response = post_form(browser, url, discount_total="100.00", admin_note="Too much")
    assert response.status_code == 200  # refused by the rule order_update applies
    assert "The discount (100.00) is larger than the order" in response.content.decode()
    order.refresh_from_db()
    assert (order.admin_note, str(order.discount_total)) == ("Checked by phone", "1.00")


def test_the_address_fields_follow_the_stores_one_address_rule(admin_user, order):
    browser = csrf_client(admin_user)
    url = reverse("admin:store_orders_order_change", args=[order.pk])
    response = post_form(
        browser, url, billing_country="GR", billing_state="Attica", admin_note="Changed"
    )
    assert response.status_code == 200  # refused on the field, nothing saved
    assert "Unknown region" in response.content.decode()
    order.refresh_from_db()
    assert (order.billing_address, order.admin_note) == ({}, "")
    response = post_form(browser, url, billing_country="GR", billing_state="gr-i")
    assert response.status_code == 302, response.content.decode()[:3000]
    order.refresh_from_db()
    assert order.billing_address == {"country": "GR", "state": "I"}


def test_deleting_in_the_admin_gives_the_stock_back(admin_client, order):
    lamp = Product.objects.get(sku="LAMP-A")
    url = reverse("admin:store_orders_order_delete", args=[order.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10
    other = make_order(line(lamp, 3))
    admin_client.post(
        reverse("admin:store_orders_order_changelist"),
        {"action": "delete_selected", "_selected_action": [other.pk], "post": "yes"},
    )
    assert not Order.objects.exists()
    assert stock_of(lamp) == 10


def test_customers_in_the_admin(admin_client):
    url = reverse("admin:store_customers_customer_add")
    no_addresses = {"addresses-TOTAL_FORMS": "0", "addresses-INITIAL_FORMS": "0"}
    response = admin_client.post(
        url, {"email": "New@Example.com", "first_name": "N", **no_addresses}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Customer.objects.get().email == "new@example.com"
    assert admin_client.post(url, {"email": "NEW@example.com", **no_addresses}).status_code == 200
    assert Customer.objects.count() == 1


def test_shop_managers_see_the_order_and_stock_screens(client, manager, order):
    assert (
        Group.objects.get(name=SHOP_MANAGER_ROLE)
        .permissions.filter(content_type__app_label="store_orders", codename="change_order")
        .exists()
    )
    manager.is_staff = True
    manager.save()
    client.force_login(manager)
    assert client.get(reverse("admin:store_orders_order_changelist")).status_code == 200
    assert client.get(reverse("admin:store_inventory_stocklevel_changelist")).status_code == 200


# --- Catalog forms: their stock goes through the inventory --------------------------------------


def _product_form(product, **values):
    data = {
        "title": product.title,
        "slug": product.slug,
        "type": product.type,
        "status": product.status,
        "product_condition": "new",
        "regular_price": "10.00",
        "track_inventory": "on",
        "stock_quantity": str(product.stock_quantity),
        "initial-stock_quantity": str(product.stock_quantity),  # what the page showed
        "stock_status": "in_stock",
        "gallery_items-TOTAL_FORMS": "0",
        "gallery_items-INITIAL_FORMS": "0",
        "variants-TOTAL_FORMS": "0",
        "variants-INITIAL_FORMS": "0",
    }
    data.update(values)
    return data


def test_the_product_form_sets_stock_through_the_inventory(admin_client):
    lamp = stocked(title="Lamp", stock=5)
    url = reverse("admin:store_catalog_product_change", args=[lamp.pk])
    assert admin_client.post(url, _product_form(lamp, stock_quantity="8")).status_code == 302
    assert stock_of(lamp) == 8
    last = StockMovement.objects.filter(product=lamp).order_by("id").last()
    assert (last.quantity, last.reason, last.reference_type) == (3, "manual_adjustment", "product")


def test_a_stale_product_form_does_not_overwrite_stock_taken_meanwhile(admin_client):
    lamp = stocked(title="Lamp", stock=5)
    form = _product_form(lamp, title="Desk lamp")  # the page as it was loaded: 5
    make_order(line(lamp, 2))  # meanwhile an order takes 2
    assert (
        admin_client.post(
            reverse("admin:store_catalog_product_change", args=[lamp.pk]), form
        ).status_code
        == 302
    )
    lamp.refresh_from_db()
    assert (lamp.title, lamp.stock_quantity) == ("Desk lamp", 3)


def test_the_variant_inline_sets_stock_through_the_inventory(admin_client):
    shirt = make_product(title="Shirt", type="variable", regular_price="10.00")
    variant = make_variant(shirt, TermFactory(), stock_quantity=1)
    data = _product_form(shirt, stock_quantity="1")
    data.update(
        {
            "variants-TOTAL_FORMS": "1",
            "variants-INITIAL_FORMS": "1",
            "variants-0-id": str(variant.pk),
            "variants-0-product": str(shirt.pk),
            "variants-0-title": variant.title,
            "variants-0-sku": "",
            "variants-0-barcode": "",
            "variants-0-regular_price": "10.00",
            "variants-0-track_inventory": "on",
            "variants-0-stock_quantity": "6",
            "initial-variants-0-stock_quantity": "1",
            "variants-0-stock_status": "in_stock",
            "variants-0-enabled": "on",
            "variants-0-sort_order": "0",
        }
    )
    response = admin_client.post(
        reverse("admin:store_catalog_product_change", args=[shirt.pk]), data
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    assert stock_of(variant) == 6
    assert stock_of(shirt) == 6
    assert StockLevel.objects.get(variant=variant).quantity == 6
