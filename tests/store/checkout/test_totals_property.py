"""Property: the order a checkout places carries the cart's totals to the cent, whatever the
prices, quantities, tax classes, coupon and tax mode — and its own arithmetic holds:
total = subtotal - discount + shipping + tax, nothing negative."""

from __future__ import annotations

import itertools
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from store.cart.services import coupons as cart_coupons
from store.cart.services import items as cart_items
from store.cart.services.pricing import cart_state
from store.checkout.services import checkout as checkout_services
from store.checkout.services import complete as completing
from store.common.money import from_cents
from store.orders.models import Order
from store.settings import services as settings_services
from tests.fixtures.properties import examples
from tests.store.catalog.factories import make_product
from tests.store.checkout.helpers import ADDRESS, Shop
from tests.store.coupons.factories import make_coupon
from tests.store.tax.factories import make_rate, set_product_class

pytestmark = pytest.mark.django_db

_names = itertools.count()
LINE = st.tuples(st.integers(1, 50_000), st.integers(1, 7), st.booleans())
COUPON = st.one_of(
    st.none(),
    st.tuples(st.just("percent"), st.integers(1, 100)),
    st.tuples(st.just("fixed_cart"), st.integers(1, 30_000)),
    st.tuples(st.just("fixed_product"), st.integers(1, 3_000)),
)


@pytest.fixture
def shop(db):
    shop = Shop()
    make_rate("13", country="GR", name="VAT reduced", tax_class_slug="reduced-rate")
    return shop


@settings(max_examples=examples(40))
@given(lines=st.lists(LINE, min_size=1, max_size=4), coupon=COUPON, inclusive=st.booleans())
def test_the_order_carries_the_carts_totals(shop, lines, coupon, inclusive):
    settings_services.settings_update(section="tax", values={"prices_include_tax": inclusive})
    n = next(_names)
    token = None
    for index, (cents, quantity, reduced) in enumerate(lines):
        product = make_product(
            title=f"Item {n}-{index}", regular_price=str(from_cents(cents)), sku=f"T-{n}-{index}"
        )
        if reduced:
            set_product_class(product, "reduced-rate")
        cart = cart_items.cart_item_add(token=token, product_id=product.pk, quantity=quantity)
        token = cart.token
    if coupon is not None:
        kind, amount = coupon
        value = amount if kind == "percent" else from_cents(amount)
        make_coupon(f"C{n}", kind, value)
        cart_coupons.cart_coupon_apply(token=token, code=f"C{n}")
    seen = cart_state(cart).totals
    fields = {
        "email": "prop@example.com",
        "billing_address": ADDRESS,
        "payment_method": "cash_on_delivery",
    }
    checkout, _created = checkout_services.checkout_start(token=token, fields=fields)
    completing.checkout_complete(checkout_id=checkout.pk, token=token)
    order = Order.objects.get(checkout__pk=checkout.pk)
    assert (order.subtotal, order.discount_total, order.shipping_total) == (
        seen["subtotal"],
        seen["discount"],
        seen["shipping"],
    )
    assert (order.tax_total, order.total) == (seen["tax"], seen["total"])
    assert order.total == order.subtotal - order.discount_total + order.shipping_total + (
        order.tax_total
    )
    assert min(order.subtotal, order.discount_total, order.tax_total, order.total) >= Decimal(0)
    assert sum(item.subtotal for item in order.items.all()) == order.subtotal
