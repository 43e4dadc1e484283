"""The modules admin: pages render; bundles, their items, promotions and groups are written
through the services (refusals shown on the forms, caches bumped); quotes change status by
actions; recorded rows are read only."""

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from tests.store.cart.helpers import add, cart_of
from tests.store.catalog.factories import make_product
from theme.modules.b2b import services as b2b
from theme.modules.b2b.models import CustomerGroup
from theme.modules.bundles import services as bundles
from theme.modules.bundles.models import Bundle, BundleItem
from theme.modules.points.models import PointsEntry
from theme.modules.promotions import services as promotions
from theme.modules.promotions.models import Promotion
from theme.modules.quotes import services as quotes
from theme.modules.recently_viewed.models import RecentlyViewed
from theme.modules.recover_cart.models import CartRecovery

pytestmark = pytest.mark.django_db


#: Each model's app: one per module (theme.modules.<module>), so the admin's URLs name it.
APP = {
    "bundle": "theme_modules_bundles",
    "bundleitem": "theme_modules_bundles",
    "promotion": "theme_modules_promotions",
    "customergroup": "theme_modules_b2b",
    "quote": "theme_modules_quotes",
    "recentlyviewed": "theme_modules_recently_viewed",
    "pointsentry": "theme_modules_points",
    "cartrecovery": "theme_modules_recover_cart",
}


def url(model: str, action: str = "changelist", *args) -> str:
    return reverse(f"admin:{APP[model]}_{model}_{action}", args=args)


def test_every_page_renders(admin_client, customer):
    lamp = make_product(title="Lamp")
    bundle = bundles.bundle_save(
        fields={"title": "Duo", "slug": "duo"}, items=[{"product_id": lamp.pk}]
    )
    promotion = promotions.promotion_save(fields={"name": "P", "kind": "fixed", "value": 1})
    group = b2b.group_save(fields={"name": "Trade"})
    quote = quotes.quote_request(
        user=None,
        fields={"name": "A", "email": "a@example.com"},
        items=[{"product_id": lamp.pk, "quantity": 2}],
    )
    seen = RecentlyViewed.objects.create(user=customer, product=lamp)
    points = PointsEntry.objects.create(user=customer, kind="earned", points=3)
    for model, obj in (
        ("bundle", bundle),
        ("bundleitem", BundleItem.objects.get()),
        ("promotion", promotion),
        ("customergroup", group),
        ("quote", quote),
        ("recentlyviewed", seen),
        ("pointsentry", points),
    ):
        assert admin_client.get(url(model)).status_code == 200, model
        assert admin_client.get(url(model, "change", obj.pk)).status_code == 200, model
    assert admin_client.get(url("cartrecovery")).status_code == 200
    assert admin_client.get(url("pointsentry", "add")).status_code == 403


def test_a_promotion_added_in_the_admin_cuts_the_cart(admin_client):
    shopper = APIClient()
    add(shopper, make_product(title="Lamp", regular_price="20.00").pk, 1)
    assert cart_of(shopper)["discount"] == "0.00"
    response = admin_client.post(
        url("promotion", "add"),
        {
            "name": "Five",
            "kind": "fixed",
            "value": "5.00",
            "min_subtotal": "0",
            "priority": 1,
            "active": "on",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    assert cart_of(shopper)["discount"] == "5.00"


def test_admin_refusals_show_on_the_form(admin_client):
    now = timezone.now()
    response = admin_client.post(
        url("promotion", "add"),
        {
            "name": "Bad",
            "kind": "percent",
            "value": "150",
            "min_subtotal": "0",
            "priority": 1,
            "starts_at_0": now.date().isoformat(),
            "starts_at_1": "10:00:00",
        },
    )
    assert response.status_code == 200
    assert not Promotion.objects.exists()
    b2b.group_save(fields={"name": "Trade"})
    response = admin_client.post(
        url("customergroup", "add"), {"name": "trade", "discount_percent": 1}
    )
    assert response.status_code == 200
    assert CustomerGroup.objects.count() == 1


def test_bundles_and_items_through_the_services(admin_client):
    lamp = make_product(title="Lamp", regular_price="10.00")
    draft = make_product(title="Draft", status="draft")
    response = admin_client.post(
        url("bundle", "add"),
        {
            "title": "Duo",
            "slug": "duo",
            "description": "",
            "active": "on",
            "discount_percent": "10",
            "items-TOTAL_FORMS": 0,
            "items-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content[:2000]
    bundle = Bundle.objects.get()
    assert (
        admin_client.post(
            url("bundleitem", "add"), {"bundle": bundle.pk, "product": lamp.pk, "quantity": 2}
        ).status_code
        == 302
    )
    refused = admin_client.post(
        url("bundleitem", "add"), {"bundle": bundle.pk, "product": draft.pk, "quantity": 1}
    )
    assert refused.status_code == 200
    assert BundleItem.objects.count() == 1
    admin_client.post(url("bundle", "delete", bundle.pk), {"post": "yes"})
    assert not Bundle.objects.exists()


def test_quote_status_actions(admin_client):
    lamp = make_product(title="Lamp")
    quote = quotes.quote_request(
        user=None,
        fields={"name": "A", "email": "a@example.com"},
        items=[{"product_id": lamp.pk, "quantity": 1}],
    )
    response = admin_client.post(
        url("quote"), {"action": "mark_answered", "_selected_action": [quote.pk]}
    )
    assert response.status_code == 302
    quote.refresh_from_db()
    assert quote.status == "answered"
    assert not CartRecovery.objects.exists()
