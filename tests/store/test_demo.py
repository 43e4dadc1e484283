from io import StringIO

import pytest
from django.core.management import call_command
from django.test import TestCase

from store.catalog.models import Attribute, Brand, Category, Product, Variant
from store.inventory.models import StockMovement, Warehouse
from store.media.models import MediaImage
from store.orders.models import Order
from store.reviews.models import Review

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.sqlite_only,  # the demo of `make run`: one pass
]


def test_seed_demo_adds_a_store_catalog_and_is_idempotent(seeded_demo, settings):
    settings.DEBUG = True
    counts = (
        Product.objects.count(),
        Variant.objects.count(),
        Category.objects.count(),
        Brand.objects.count(),
        Attribute.objects.count(),
        MediaImage.objects.count(),
        Review.objects.count(),
    )
    assert counts[0] == 6
    assert Product.objects.filter(type="variable").count() == 2
    assert counts[1] == 15
    assert all(n > 0 for n in counts)
    assert Product.objects.exclude(featured_image=None).count() == 6
    assert Review.objects.filter(status="approved").count() == 3
    assert "Store (ec/v1)" in seeded_demo
    call_command("seed_demo", stdout=StringIO())
    assert (
        Product.objects.count(),
        Variant.objects.count(),
        Category.objects.count(),
        Brand.objects.count(),
        Attribute.objects.count(),
        MediaImage.objects.count(),
        Review.objects.count(),
    ) == counts


def test_seed_demo_adds_orders_in_several_statuses_with_their_stock(seeded_demo, settings):
    settings.DEBUG = True
    statuses = set(Order.objects.values_list("status", flat=True))
    assert statuses == {
        "pending",
        "on_hold",
        "processing",
        "shipped",
        "completed",
        "cancelled",
        "refunded",
    }
    assert set(Order.objects.values_list("payment_status", flat=True)) >= {
        "unpaid",
        "paid",
        "refunded",
    }
    assert Order.objects.filter(fulfillment_status="fulfilled").count() == 2
    assert Order.objects.filter(customer__user__email="developer@example.com").count() == 4
    assert Warehouse.objects.count() == 2
    tote = Product.objects.get(sku="TOTE-1")
    assert tote.stock_quantity == 30 - 1 - 2  # pending and completed hold; refunded gave back
    assert all(
        number in seeded_demo for number in Order.objects.values_list("order_number", flat=True)
    )
    counts = (Order.objects.count(), StockMovement.objects.count())
    call_command("seed_demo", stdout=StringIO())
    assert (Order.objects.count(), StockMovement.objects.count()) == counts


def test_seed_demo_adds_shipping_tax_and_coupons_idempotently(seeded_demo, settings):
    from store.coupons.models import Coupon
    from store.shipping.models import ShippingMethod, ShippingZone
    from store.tax.models import TaxRate

    settings.DEBUG = True
    counts = (
        ShippingZone.objects.count(),
        ShippingMethod.objects.count(),
        TaxRate.objects.count(),
        Coupon.objects.count(),
    )
    assert counts == (4, 7, 54, 4)
    assert ShippingZone.objects.filter(is_fallback=True).count() == 1
    assert "WELCOME10" in seeded_demo
    call_command("seed_demo", stdout=StringIO())
    assert (
        ShippingZone.objects.count(),
        ShippingMethod.objects.count(),
        TaxRate.objects.count(),
        Coupon.objects.count(),
    ) == counts


def test_seed_demo_turns_on_the_feeds_and_the_generic_marketplace(seeded_demo, settings, client):
    """The printed feed URL serves the generated feed; a webhook signed with the printed demo
    secret becomes a store order (docs/api/store.md's walk-throughs, on `make run`)."""
    import hashlib
    import hmac
    import json
    import re
    import time
    from urllib.parse import urlsplit

    from store.feeds.models import Feed
    from store.marketplace.demo import DEMO_SECRET
    from store.marketplace.models import MarketplaceOrder

    settings.DEBUG = True
    assert set(Feed.objects.filter(enabled=True).values_list("marketplace", flat=True)) == {
        "google",
        "skroutz",
    }
    urls = re.findall(r"https?://\S+/feed\.xml\?token=\S+", seeded_demo)
    assert len(urls) == 2
    for url in urls:
        parts = urlsplit(url)
        feed = client.get(f"{parts.path}?{parts.query}")
        assert feed.status_code == 200, url
        assert feed["ETag"]
        assert b"<?xml" in feed.content[:100]
    product = (
        Product.objects.filter(status="active", type="simple", stock_quantity__gt=2)
        .exclude(sku="")
        .first()
    )
    body = json.dumps(
        {
            "id": "demo-1",
            "type": "order.created",
            "order": {
                "code": "DEMO-1",
                "state": "open",
                "currency": "EUR",
                "billing_address": {"first_name": "Ada", "email": "ada@example.com"},
                "items": [{"sku": product.sku, "quantity": 1, "unit_price": "10.00"}],
            },
        }
    ).encode()
    stamp = str(int(time.time()))
    signature = hmac.new(DEMO_SECRET.encode(), stamp.encode() + b"." + body, hashlib.sha256)
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = client.post(
            "/rest/ec/v1/marketplace/webhook/generic",
            body,
            content_type="application/json",
            HTTP_X_MARKETPLACE_SIGNATURE=f"t={stamp},v1={signature.hexdigest()}",
        )
    assert answer.status_code == 200, answer.content
    row = MarketplaceOrder.objects.get(code="DEMO-1")
    assert row.order is not None, (row.failure_code, row.failure_message)
