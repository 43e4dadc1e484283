"""The admin of carts, shipping, tax and coupons: every page renders; writes keep the rules."""

from decimal import Decimal

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from store.cart.models import Cart, CartCoupon, CartItem
from store.cart.services import items as item_services
from store.common.capabilities import SHOP_MANAGER_ROLE
from store.coupons import services as coupon_services
from store.coupons.models import Coupon, CouponUse
from store.coupons.selectors import Customer
from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation
from store.tax.models import ProductTaxClass, TaxClass, TaxRate
from tests.accounts.factories import UserFactory
from tests.store.catalog.factories import make_product
from tests.store.coupons.factories import make_coupon
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate, set_product_class

pytestmark = pytest.mark.django_db

MODELS = [
    Cart,
    Coupon,
    CouponUse,
    ShippingZone,
    ShippingMethod,
    TaxClass,
    TaxRate,
    ProductTaxClass,
]


@pytest.fixture
def rows():
    lamp = make_product(title="Lamp")
    cart = item_services.cart_item_add(token=None, user=UserFactory(), product_id=lamp.pk)
    coupon = make_coupon("SAVE", product_ids=[lamp.pk])
    CartCoupon.objects.create(cart=cart, coupon=coupon)
    coupon_services.coupon_uses_reserve(codes=["SAVE"], order_reference="o1", customer=Customer())
    zone = make_zone("Greece", countries=["GR"], postcodes=["10*"])
    make_method(zone, cost="3.00")
    make_rate(24, country="GR")
    set_product_class(lamp, "reduced-rate")
    return {"lamp": lamp, "cart": cart, "coupon": coupon, "zone": zone}


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_model_has_changelist_search_and_change_pages(admin_client, rows, model):
    meta = model._meta
    changelist = reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    assert admin_client.get(changelist, {"q": "x"}).status_code == 200
    obj = model.objects.first()
    change = reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])
    assert admin_client.get(change).status_code == 200
    if model not in (Cart, CouponUse):
        assert (
            admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_add")).status_code
            == 200
        )


def test_carts_cannot_be_added_and_show_their_lines(admin_client, rows):
    assert admin_client.get(reverse("admin:store_cart_cart_add")).status_code == 403
    html = admin_client.get(
        reverse("admin:store_cart_cart_change", args=[rows["cart"].pk])
    ).content.decode()
    assert "Lamp" in html
    assert (
        admin_client.get(
            reverse("admin:store_cart_cart_changelist"), {"owner": "guest"}
        ).status_code
        == 200
    )
    response = admin_client.post(
        reverse("admin:store_cart_cart_changelist"),
        {"action": "delete_selected", "_selected_action": [rows["cart"].pk], "post": "yes"},
    )
    assert response.status_code == 302
    assert not Cart.objects.exists()
    assert not CartItem.objects.exists()


def coupon_form(**overrides):
    data = {
        "code": "NEW",
        "description": "",
        "discount_type": "percent",
        "amount": "10",
        "expires_at_0": "",
        "expires_at_1": "",
        "enabled": "on",
    }
    data.update(overrides)
    return data


def test_the_coupon_form_keeps_the_rules(admin_client, rows):
    url = reverse("admin:store_coupons_coupon_add")
    assert admin_client.post(url, coupon_form(code="save")).status_code == 200  # taken, any case
    assert admin_client.post(url, coupon_form(amount="150")).status_code == 200  # percent over 100
    assert (
        admin_client.post(url, coupon_form(minimum_amount="50", maximum_amount="5")).status_code
        == 200
    )
    lamp = rows["lamp"].pk
    both = coupon_form(products=[lamp], excluded_products=[lamp])
    assert admin_client.post(url, both).status_code == 200
    assert Coupon.objects.count() == 1
    assert admin_client.post(url, coupon_form(code=" Fresh ")).status_code == 302
    assert Coupon.objects.filter(code="Fresh").exists()


def test_a_used_coupon_is_not_deleted_from_the_admin(admin_client, rows):
    coupon = rows["coupon"]
    admin_client.post(
        reverse("admin:store_coupons_coupon_changelist"),
        {"action": "delete_selected", "_selected_action": [coupon.pk], "post": "yes"},
    )
    assert Coupon.objects.filter(pk=coupon.pk).exists()


def test_coupon_actions(admin_client, rows):
    coupon = rows["coupon"]
    admin_client.post(
        reverse("admin:store_coupons_coupon_changelist"),
        {"action": "disable", "_selected_action": [coupon.pk]},
    )
    coupon.refresh_from_db()
    assert coupon.enabled is False
    use = CouponUse.objects.get()
    admin_client.post(
        reverse("admin:store_coupons_couponuse_changelist"),
        {"action": "release", "_selected_action": [use.pk]},
    )
    use.refresh_from_db()
    assert use.status == "released"


def test_zone_locations_are_checked(admin_client):
    url = reverse("admin:store_shipping_shippingzone_add")
    base = {
        "name": "Z",
        "sort_order": "0",
        "locations-TOTAL_FORMS": "1",
        "locations-INITIAL_FORMS": "0",
        "methods-TOTAL_FORMS": "0",
        "methods-INITIAL_FORMS": "0",
        "locations-0-type": "country",
    }
    assert admin_client.post(url, {**base, "locations-0-code": "XX"}).status_code == 200
    assert (
        admin_client.post(
            url, {**base, "locations-0-type": "region", "locations-0-code": "GR:ZZ"}
        ).status_code
        == 200
    )
    assert (
        admin_client.post(
            url, {**base, "locations-0-type": "postcode", "locations-0-code": "1*2"}
        ).status_code
        == 200
    )
    assert not ShippingZone.objects.exists()
    assert (
        admin_client.post(
            url, {**base, "locations-0-type": "region", "locations-0-code": "gr-i"}
        ).status_code
        == 302
    )
    assert ShippingZoneLocation.objects.get().code == "GR:I"


def test_methods_are_checked(admin_client, rows):
    url = reverse("admin:store_shipping_shippingmethod_add")
    base = {
        "zone": rows["zone"].pk,
        "title": "M",
        "enabled": "on",
        "sort_order": "0",
        "taxable": "on",
    }
    # The settings are one JSON field, checked against the type (store.shipping.types).
    bad = [
        {"type": "free_shipping", "settings": '{"requires": "min_amount"}'},
        {"type": "weight_based", "settings": "{}"},
        {
            "type": "weight_based",
            "settings": '{"weight_rates": [{"max_weight": "5", "cost": "1"}, '
            '{"max_weight": "2", "cost": "1"}]}',
        },
        {"type": "flat_rate", "settings": '{"weight_rates": [{"max_weight": "5", "cost": "1"}]}'},
    ]
    for fields in bad:
        assert admin_client.post(url, {**base, **fields}).status_code == 200, fields
    assert ShippingMethod.objects.count() == 1
    good = {
        "type": "weight_based",
        "settings": '{"weight_rates": [{"max_weight": "2", "cost": "4.00"}]}',
    }
    assert admin_client.post(url, {**base, **good}).status_code == 302
    assert ShippingMethod.objects.count() == 2


def test_tax_rates_are_checked(admin_client):
    url = reverse("admin:store_tax_taxrate_add")
    base = {
        "tax_class": TaxClass.objects.get(slug="standard").pk,
        "rate": "24",
        "name": "VAT",
        "priority": "1",
        "applies_to_shipping": "on",
        "enabled": "on",
        "postcodes": "",
        "region": "",
    }
    assert admin_client.post(url, {**base, "country": "XX"}).status_code == 200
    assert admin_client.post(url, {**base, "country": "GR", "region": "ZZ"}).status_code == 200
    assert admin_client.post(url, {**base, "country": "GR", "rate": "101"}).status_code == 200
    assert not TaxRate.objects.exists()
    assert admin_client.post(url, {**base, "country": "gr", "region": "GR-I"}).status_code == 302
    rate = TaxRate.objects.get()
    assert (rate.country, rate.region, rate.rate) == ("GR", "I", Decimal("24"))


def test_the_standard_tax_class_cannot_be_deleted(admin_client):
    standard = TaxClass.objects.get(slug="standard")
    response = admin_client.get(reverse("admin:store_tax_taxclass_delete", args=[standard.pk]))
    assert response.status_code == 403


def test_shop_managers_see_coupons_shipping_and_carts(client, rows):
    user = UserFactory(is_staff=True)
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    client.force_login(user)
    assert client.get(reverse("admin:store_coupons_coupon_changelist")).status_code == 200
    assert client.get(reverse("admin:store_shipping_shippingzone_changelist")).status_code == 200
    assert client.get(reverse("admin:store_cart_cart_changelist")).status_code == 200
    assert client.get(reverse("admin:store_tax_taxrate_changelist")).status_code == 403
