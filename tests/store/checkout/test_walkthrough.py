"""The issue's "done when": with the demo data, a shopper fills a cart, applies a coupon, picks
shipping, checks out, pays with the sandbox card and reads the order-received page — the
walk-through of docs/api/store.md, through the HTTP API alone."""

import pytest
from django.conf import settings
from django.core import mail
from rest_framework.test import APIClient

from store.catalog.models import Product
from store.settings import selectors as store_settings
from store.shipping.models import ShippingMethod
from tests.fixtures.store import API
from tests.store.checkout.helpers import ADDRESS, CARD

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.sqlite_only,
]  # a walk-through of `make run`: one pass


def test_the_readme_walk_through(seeded_demo, django_capture_on_commit_callbacks):
    assert store_settings.get_value("payments", "bank_transfer_iban")
    tote = Product.objects.get(sku="TOTE-1")
    free = ShippingMethod.objects.get(title="Free delivery", zone__name="Attica")
    shopper = APIClient()

    def post(path, body):
        response = shopper.post(f"{API}{path}", body, format="json")
        assert response.status_code in (200, 201), (path, response.content)
        return response.json()

    post("/cart/items", {"product_id": tote.pk, "quantity": 2})
    post("/cart/shipping-address", {"country": "GR", "region": "I", "postcode": "10431"})
    post("/cart/shipping-method", {"method_id": free.pk})
    cart = post("/coupons/apply", {"code": "welcome10"})["cart"]
    assert (cart["subtotal"], cart["discount"], cart["shipping"], cart["total"]) == (
        "48.00",
        "4.80",
        "0.00",
        "53.57",
    )
    methods = shopper.get(f"{API}/checkout/payment-methods").json()["payment_methods"]
    assert [m["id"] for m in methods] == ["sandbox_card", "bank_transfer", "cash_on_delivery"]
    checkout = post(
        "/checkout",
        {
            "email": "ana@example.com",
            "billing_address": ADDRESS,
            "shipping_method": free.pk,
            "payment_method": "sandbox_card",
        },
    )
    assert post(f"/checkout/{checkout['id']}/validate", {})["valid"] is True
    with django_capture_on_commit_callbacks(execute=True):
        done = post(
            f"/checkout/{checkout['id']}/complete",
            {"payment_data": CARD, "expected_total": "53.57"},
        )
    assert (done["status"], done["payment_status"], done["total"]) == (
        "processing",
        "paid",
        "53.57",
    )
    page = shopper.get(done["order_received_url"].removeprefix(settings.FRONTEND_URL)).json()
    assert (page["order_number"], page["payment_status"]) == (done["order_number"], "paid")
    assert page["coupons"] == [{"code": "WELCOME10", "discount": "4.80", "discount_tax": "1.15"}]
    assert [(i["title"], i["quantity"]) for i in page["items"]] == [("Canvas Tote Bag", 2)]
    assert [m.to for m in mail.outbox] == [["ana@example.com"], ["orders@example.com"]]
