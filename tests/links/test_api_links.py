"""The links of API answers and feeds start with FRONTEND_URL, never with the host the request
came in on, and lead to their page; a page the store's settings name wins for its link."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import timedelta

import pytest
from django.core.files.base import ContentFile
from django.utils import timezone

from licensing.models import Release
from licensing.services.releases import release_save
from store.feeds import services as feeds
from store.settings import services as settings_services
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.fixtures.store import API, api_as, grant
from tests.licensing.factories import (
    ActivationFactory,
    LicenseFactory,
    ProductFactory,
    ReleaseFactory,
)
from tests.links.conftest import ELSEWHERE, SITE, assert_on_site_and_answers
from tests.store.checkout.helpers import Shop, complete, started
from tests.store.feeds.conftest import complete_product

pytestmark = pytest.mark.django_db

G = "{http://base.google.com/ns/1.0}"


def test_the_checkout_answers_the_order_page_on_frontend_url(elsewhere):
    checkout = started(elsewhere, Shop())
    done = complete(elsewhere, checkout["id"])
    assert done.status_code == 200, done.content
    assert done.wsgi_request.get_host() == ELSEWHERE
    url = done.json()["order_received_url"]
    assert_on_site_and_answers(url, what="completion")
    again = elsewhere.get(f"{API}/checkout/{checkout['id']}")
    assert again.status_code == 200, again.content
    assert again.json()["order"]["order_received_url"] == url


@pytest.mark.parametrize(
    ("page", "expected"),
    [
        ("https://storefront.example/thanks/{order_id}?key={key}", "https://storefront.example"),
        ("/thanks/{order_number}?key={key}", SITE),
    ],
)
def test_a_page_the_settings_name_wins_and_a_path_is_on_frontend_url(elsewhere, page, expected):
    settings_services.settings_update(section="checkout", values={"order_received_page": page})
    checkout = started(elsewhere, Shop())
    body = complete(elsewhere, checkout["id"]).json()
    path = page.split("/thanks/")[0].removeprefix("https://storefront.example")
    number = body["order_number"] if "order_number" in page else body["order_id"]
    assert body["order_received_url"] == (
        f"{expected}{path}/thanks/{number}?key={body['order_key']}"
    )


def test_a_licence_download_url_is_on_frontend_url(elsewhere):
    product = ProductFactory(slug="theme")
    release = ReleaseFactory(
        product=product, version="1.0.0", released_at=timezone.now() - timedelta(days=1)
    )
    release.file.save("theme.zip", ContentFile(b"zip" * 100), save=True)
    release_save(release=Release.objects.get(pk=release.pk))
    license = LicenseFactory(product=product)
    ActivationFactory(license=license, domain="shop.example.com")
    body = {"license_key": license.license_key, "domain": "shop.example.com"}
    response = elsewhere.post("/api/v1/updates/download", body, format="json")
    assert response.status_code == 200, response.content
    assert_on_site_and_answers(response.json()["url"], what="download")


def test_a_renewal_checkout_url_is_on_frontend_url(elsewhere):
    reseller = ResellerFactory()
    license = LicenseFactory(owner=reseller, expires_at=timezone.now() + timedelta(days=5))
    elsewhere.force_authenticate(reseller)
    response = elsewhere.post(
        "/api/v1/portal/licenses/bulk-renew", {"license_ids": [license.pk]}, format="json"
    )
    assert response.status_code == 201, response.content
    url = response.json()["checkout_url"]
    assert url.startswith(f"{SITE}/pay/sandbox/")
    assert_on_site_and_answers(url, what="renewal checkout")


def test_a_feed_and_its_links_are_on_frontend_url(elsewhere):
    product = complete_product(title="Desk lamp", gtin="4006381333931")
    feeds.feed_update(marketplace="google", fields={"enabled": True})
    feed = feeds.generate(marketplace="google")
    assert feed.status == "ready", feed.error
    seller = grant(UserFactory(email="seller@example.com"), "ec_manage_marketplace")
    listed = api_as(seller).get(f"{API}/marketplace/feeds/google", HTTP_HOST=ELSEWHERE)
    assert listed.status_code == 200, listed.content
    assert_on_site_and_answers(listed.json()["url"], what="feed url")

    root = ET.fromstring(bytes(feed.file.content))  # noqa: S314 - our own feed
    assert root.find("channel/link").text == f"{SITE}/"
    [item] = root.iter("item")
    assert item.find("link").text == f"{SITE}/product/{product.slug}"
    images = [item.find(f"{G}image_link").text]
    images += [e.text for e in item.findall(f"{G}additional_image_link")]
    assert images
    assert all(url.startswith(f"{SITE}/media/") for url in images), images
