"""Marketplace feeds' fixtures: a staff client holding ec_manage_marketplace, and products
complete enough for both feeds."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from django.test import Client
from rest_framework.test import APIClient

from store.catalog.models import Product
from store.feeds import services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, basic_auth, grant
from tests.store.catalog.factories import BrandFactory, CategoryFactory, add_gallery, make_product
from tests.store.media.factories import media_row

FEEDS = f"{API}/marketplace/feeds"
MAPPING = f"{API}/marketplace/categories/mapping"
MANAGE_MARKETPLACE = "ec_manage_marketplace"
G = "{http://base.google.com/ns/1.0}"


@pytest.fixture
def seller(db):
    return grant(UserFactory(email="seller@example.com"), MANAGE_MARKETPLACE)


@pytest.fixture
def staff(seller) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(seller))
    return client


@pytest.fixture
def csrf_staff(seller) -> Client:
    """A browser session with CSRF checks on: unsafe calls need the REST nonce."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(seller)
    return client


def nonce(client: Client) -> str:
    response = client.get(f"{API}/auth/nonce")
    assert response.status_code == 200
    return response.json()["nonce"]


def complete_product(*, category=None, brand=None, **fields) -> Product:
    """An active product with everything both feeds need (image, brand, category, EAN)."""
    category = category or CategoryFactory(name="Lamps")
    brand = brand or BrandFactory(name="Lumen")
    fields.setdefault("title", "Desk lamp")
    fields.setdefault("description", "<p>A bright <b>desk</b> lamp.</p>")
    fields.setdefault("regular_price", "12.50")
    fields.setdefault("featured_image_id", media_row().pk)
    product = make_product(category_ids=[category.pk], brand=brand.pk, **fields)
    return product


def with_gallery(product: Product, count: int = 2) -> Product:
    add_gallery(product, *[media_row() for _ in range(count)])
    return product


def enable(marketplace: str, **fields):
    return services.feed_update(marketplace=marketplace, fields={"enabled": True, **fields})


def generated(marketplace: str, **fields) -> ET.Element:
    """Enable, generate now (the task's work) and parse the stored feed."""
    enable(marketplace, **fields)
    feed = services.generate(marketplace=marketplace)
    assert feed.status == "ready", feed.error
    return ET.fromstring(bytes(feed.file.content))  # noqa: S314 - our own feed


def google_items(root: ET.Element) -> list[dict]:
    items = []
    for item in root.iter("item"):
        entry: dict = {}
        for child in item:
            name = child.tag.replace(G, "g:")
            entry.setdefault(name, []).append(child.text if not len(child) else child)
        items.append({k: v[0] if len(v) == 1 else v for k, v in entry.items()})
    return items
