"""Shared helpers of the checkout tests: a small shop, addresses and the checkout calls."""

from __future__ import annotations

from decimal import Decimal

from rest_framework.test import APIClient

from store.catalog.models import Product
from store.common.cart_session import CART_COOKIE
from store.tax.models import TaxClass
from tests.fixtures.store import API
from tests.store.cart.helpers import add
from tests.store.catalog.factories import make_product
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate

CHECKOUT = f"{API}/checkout"
CARD = {"card_number": "4242 4242 4242 4242", "exp_month": 12, "exp_year": 2040, "cvc": "123"}
DECLINED = {**CARD, "card_number": "4000 0000 0000 0002"}
ADDRESS = {
    "first_name": "Ana",
    "last_name": "Papadopoulou",
    "address_1": "Ermou 12",
    "city": "Athens",
    "region": "I",
    "postcode": "10431",
    "country": "GR",
    "phone": "+30 210 000 0000",
}


class Shop:
    """A Greek shop: 24% VAT, a courier (5.00 + 0 per item), pickup, a lamp with 5 in stock
    (20.00) and an untracked mug (8.00)."""

    def __init__(self) -> None:
        # A flushed database (transactional tests) lacks the migration's tax classes.
        TaxClass.objects.get_or_create(slug="standard", defaults={"name": "Standard"})
        zone = make_zone("Greece", countries=["GR"])
        self.courier = make_method(zone, "flat_rate", "Courier", cost="5.00")
        self.pickup = make_method(zone, "local_pickup", "Pick up", cost="0")
        self.rate = make_rate("24", country="GR", name="VAT")
        self.lamp = make_product(title="Lamp", sku="LAMP", regular_price="20.00", stock_quantity=5)
        self.mug = make_product(title="Mug", sku="MUG", regular_price="8.00")

    def stock(self, product: Product | None = None) -> int:
        product = product or self.lamp
        return Product.objects.get(pk=product.pk).stock_quantity


def details(**overrides) -> dict:
    body = {
        "email": "ana@example.com",
        "billing_address": dict(ADDRESS),
        "shipping_method": None,
        "payment_method": "sandbox_card",
    }
    body.update(overrides)
    return {key: value for key, value in body.items() if value is not None}


def start(client: APIClient, **overrides):
    return client.post(CHECKOUT, details(**overrides), format="json")


def started(client: APIClient, shop: Shop, *, lamps: int = 2, mugs: int = 1, **overrides) -> dict:
    """Fill the cart and start its checkout; answers the checkout body."""
    if lamps:
        assert add(client, shop.lamp.pk, lamps).status_code == 200
    if mugs:
        assert add(client, shop.mug.pk, mugs).status_code == 200
    response = start(client, **overrides)
    assert response.status_code == 201, response.content
    return response.json()


def complete(client: APIClient, checkout_id: int, **body):
    body.setdefault("payment_data", CARD)
    return client.post(f"{CHECKOUT}/{checkout_id}/complete", body, format="json")


def cookie_of(client: APIClient) -> str | None:
    morsel = client.cookies.get(CART_COOKIE)
    return morsel.value if morsel is not None else None


def money(value) -> str:
    return format(Decimal(value).quantize(Decimal("0.01")), "f")
