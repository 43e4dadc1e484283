"""Recently viewed, bundles, quotes, product names and labels, through HTTP."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from store.catalog.models import Product
from tests.accounts.factories import UserFactory
from tests.fixtures.store import grant
from tests.store.catalog.factories import make_product
from tests.theme.modules.conftest import BASE, error, limit
from theme.modules.bundles import services
from theme.modules.quotes.models import Quote
from theme.modules.recently_viewed.models import RecentlyViewed

pytestmark = pytest.mark.django_db
VIEWED = f"{BASE}/recently-viewed"


# --- Recently viewed ----------------------------------------------------------------------------


def test_a_guest_records_views_newest_first_and_bounded(settings):
    settings.THEME_RECENTLY_VIEWED_MAX = 3
    guest = APIClient()
    products = [make_product(title=f"P{n}") for n in range(5)]
    first = guest.post(VIEWED, {"product_id": products[0].pk}, format="json")
    assert first.status_code == 201, first.content
    assert first["X-Cart-ID"]  # a session was made for the guest
    for product in products[1:]:
        assert guest.post(VIEWED, {"product_id": product.pk}, format="json").status_code == 201
    guest.post(VIEWED, {"product_id": products[2].pk}, format="json")  # seen again: to the front
    body = guest.get(VIEWED).json()
    assert [i["product"]["title"] for i in body["items"]] == ["P2", "P4", "P3"]
    assert body["max_items"] == 3
    assert RecentlyViewed.objects.count() == 3
    assert APIClient().get(VIEWED).json()["items"] == []  # another visitor sees nothing
    assert guest.delete(VIEWED).json() == {"deleted": 3}


def test_a_customer_records_their_own(store_client, customer):
    me = store_client(customer)
    lamp = make_product(title="Lamp")
    assert me.post(VIEWED, {"product_id": lamp.pk}, format="json").status_code == 201
    assert me.get(VIEWED).json()["total"] == 1
    other = store_client(UserFactory(email="o@example.com"))
    assert other.get(VIEWED).json()["total"] == 0


def test_recently_viewed_refusals(anon):
    draft = make_product(title="Draft", status="draft")
    error(anon.post(VIEWED, {"product_id": draft.pk}, format="json"), 404, "product_not_found")
    error(anon.post(VIEWED, {"product_id": "x"}, format="json"), 400)
    error(anon.post(VIEWED, {}, format="json"), 400)
    assert not RecentlyViewed.objects.exists()


# --- Bundles ------------------------------------------------------------------------------------


def test_bundles_are_public_with_their_prices(anon, django_assert_max_num_queries):
    lamp = make_product(title="Lamp", regular_price="20.00")
    desk = make_product(title="Desk", regular_price="100.00")
    services.bundle_save(
        fields={"title": "Office", "slug": "office", "discount_percent": Decimal("10")},
        items=[{"product_id": lamp.pk, "quantity": 2}, {"product_id": desk.pk}],
    )
    for n in range(3):
        services.bundle_save(
            fields={"title": f"B{n}", "slug": f"b{n}"}, items=[{"product_id": lamp.pk}]
        )
    services.bundle_save(
        fields={"title": "Hidden", "slug": "hidden", "active": False},
        items=[{"product_id": lamp.pk}],
    )
    with django_assert_max_num_queries(4):
        body = anon.get(f"{BASE}/bundles?per_page=50").json()
    assert body["total"] == 4
    office = next(b for b in body["bundles"] if b["slug"] == "office")
    assert (office["regular_price"], office["price"], office["saving"]) == (
        "140.00",
        "126.00",
        "14.00",
    )
    assert [i["quantity"] for i in office["items"]] == [2, 1]
    error(anon.get(f"{BASE}/bundles?page=0"), 400, "invalid_param")


def test_a_bundle_needs_active_products():
    from common.errors import ServiceError

    draft = make_product(title="Draft", status="draft")
    with pytest.raises(ServiceError):
        services.bundle_save(fields={"title": "X", "slug": "x"}, items=[{"product_id": draft.pk}])
    with pytest.raises(ServiceError):
        services.bundle_save(fields={"title": "X", "slug": "x"}, items=[])


# --- Quotes -------------------------------------------------------------------------------------


def quote_body(*products, **extra):
    return {
        "name": "Ada",
        "email": "ada@example.com",
        "company": "Engines Ltd",
        "items": [{"product_id": p.pk, "quantity": 10} for p in products],
        **extra,
    }


def test_a_shopper_requests_a_quote_and_staff_list_them(
    anon, store_client, manager, django_assert_max_num_queries
):
    lamp = make_product(title="Lamp")
    desk = make_product(title="Desk")
    response = anon.post(f"{BASE}/quotes", quote_body(lamp, desk), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["status"] == "new"
    for _ in range(3):
        anon.post(f"{BASE}/quotes", quote_body(lamp), format="json")
    staff = store_client(manager)
    with django_assert_max_num_queries(8):
        body = staff.get(f"{BASE}/quotes?per_page=50").json()
    assert body["total"] == 4
    oldest = body["quotes"][-1]
    assert [(i["title"], i["quantity"]) for i in oldest["items"]] == [("Lamp", 10), ("Desk", 10)]
    assert staff.get(f"{BASE}/quotes?status=closed").json()["total"] == 0


def test_quote_refusals(anon, store_client, customer):
    lamp = make_product(title="Lamp")
    draft = make_product(title="Draft", status="draft")
    error(anon.post(f"{BASE}/quotes", quote_body(draft), format="json"), 404, "product_not_found")
    error(anon.post(f"{BASE}/quotes", quote_body(lamp, lamp), format="json"), 400)
    error(anon.post(f"{BASE}/quotes", quote_body(), format="json"), 400)
    error(anon.post(f"{BASE}/quotes", quote_body(lamp, email="nope"), format="json"), 400)
    bad = quote_body(lamp)
    bad["items"][0]["quantity"] = 0
    error(anon.post(f"{BASE}/quotes", bad, format="json"), 400)
    assert not Quote.objects.exists()
    error(anon.get(f"{BASE}/quotes"), 401)
    error(store_client(customer).get(f"{BASE}/quotes"), 403)


def test_quotes_are_rate_limited(anon, settings):
    limit(settings, "quote_request", "2/hour")
    lamp = make_product(title="Lamp")
    for _ in range(2):
        assert anon.post(f"{BASE}/quotes", quote_body(lamp), format="json").status_code == 201
    error(anon.post(f"{BASE}/quotes", quote_body(lamp), format="json"), 429)


def test_a_csrf_enforcing_browser_gets_json():
    lamp = make_product(title="Lamp")
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(f"{BASE}/quotes", quote_body(lamp), content_type="application/json")
    assert response.status_code == 201
    staff = grant(UserFactory(email="s@example.com"), "manage_options")
    browser.force_login(staff)
    response = browser.post(f"{BASE}/b2b/groups", {"name": "X"}, content_type="application/json")
    assert response.status_code in (401, 403)
    assert response["Content-Type"].startswith("application/json")


# --- Product names and labels -------------------------------------------------------------------


def test_product_names(anon, settings, django_assert_max_num_queries):
    lamp = make_product(title="Lamp")
    desk = make_product(title="Desk")
    draft = make_product(title="Draft", status="draft")
    with django_assert_max_num_queries(1):
        body = anon.get(f"{BASE}/products/names?ids={lamp.pk},{desk.pk},{draft.pk},999999").json()
    assert body["names"] == {str(lamp.pk): "Lamp", str(desk.pk): "Desk"}
    assert body["missing"] == [draft.pk, 999999]
    settings.THEME_PRODUCT_NAMES_MAX = 2
    error(anon.get(f"{BASE}/products/names?ids=1,2,3"), 400, "invalid_param")
    for bad in ("", "a", "1,-2", "1.5", "٣", "9" * 30):
        error(anon.get(f"{BASE}/products/names?ids={bad}"), 400)
    error(anon.get(f"{BASE}/products/names"), 400)


def test_labels(anon):
    fresh = make_product(
        title="Fresh",
        regular_price="10.00",
        sale_price="8.00",
        track_inventory=True,
        stock_quantity=3,
    )
    labels = anon.get(f"{BASE}/labels/product/{fresh.pk}").json()["labels"]
    assert [label["code"] for label in labels] == ["new", "sale", "low_stock"]
    old = make_product(title="Old", track_inventory=True, stock_quantity=50)
    Product.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=90))
    assert anon.get(f"{BASE}/labels/product/{old.pk}").json()["labels"] == []
    draft = make_product(title="Draft", status="draft")
    error(anon.get(f"{BASE}/labels/product/{draft.pk}"), 404, "product_not_found")
    error(anon.get(f"{BASE}/labels/product/99999999"), 404, "product_not_found")


def test_a_quote_retried_with_its_idempotency_key_is_made_once(anon):
    lamp = make_product(title="Lamp")
    first = anon.post(
        f"{BASE}/quotes", quote_body(lamp), format="json", HTTP_IDEMPOTENCY_KEY="quote-key-1"
    )
    again = anon.post(
        f"{BASE}/quotes", quote_body(lamp), format="json", HTTP_IDEMPOTENCY_KEY="quote-key-1"
    )
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert Quote.objects.count() == 1


def test_a_made_up_session_token_is_not_used(anon):
    from store.cart.models import Cart

    lamp = make_product(title="Lamp")
    response = anon.post(VIEWED, {"product_id": lamp.pk}, format="json", HTTP_X_CART_ID="z" * 43)
    assert response.status_code == 201
    row = RecentlyViewed.objects.get()
    assert row.session_token == response["X-Cart-ID"] != "z" * 43
    assert Cart.objects.filter(token=row.session_token).exists()
    draft = make_product(title="Draft", status="draft")
    fresh = APIClient()
    error(fresh.post(VIEWED, {"product_id": draft.pk}, format="json"), 404)
    assert Cart.objects.count() == 1  # a refusal makes no session
