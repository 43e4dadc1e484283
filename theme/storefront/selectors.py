"""Reads of the storefront: theme settings (cached), menus (cached), wishlists, search."""

from __future__ import annotations

import hashlib
import logging

from django.conf import settings
from django.core.cache import cache

from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.catalog.selectors import search as catalog_search
from store.common.cache import VersionedCache
from store.common.errors import not_found
from theme.storefront import settings_schema
from theme.storefront.models import Menu, MenuItem, MenuLocation, ThemeSettings, WishlistItem

logger = logging.getLogger(__name__)

SETTINGS_NAME = "storefront"
SETTINGS_CACHE_SECONDS = 300
MENUS = VersionedCache("theme_menus")
MAX_MENU_DEPTH = 3
MAX_MENU_ITEMS = 200


# --- Theme settings -----------------------------------------------------------------------------


def settings_cache_key() -> str:
    return f"theme:storefront:settings:{settings_schema.signature()}"


def clean_settings(stored: dict | None) -> dict:
    """Defaults, overlaid with each stored value the declaration still accepts."""
    values = settings_schema.defaults()
    declared = settings_schema.fields()
    for key, value in (stored or {}).items():
        field = declared.get(key)
        if field is None:
            continue
        try:
            values[key] = field.run_validation(value)
        except Exception:  # noqa: BLE001 - a stored value the declaration no longer accepts
            logger.warning("ignoring stored theme setting %s=%r", key, value)
    return values


def theme_settings() -> dict:
    """The storefront settings: the cache's copy, else the database's (the truth), cached
    best-effort for SETTINGS_CACHE_SECONDS (an outage reads the database every time)."""
    key = settings_cache_key()
    values = cache.get(key)
    if not isinstance(values, dict):
        row = ThemeSettings.objects.filter(name=SETTINGS_NAME).values_list("values", flat=True)
        values = clean_settings(row.first())
        cache.set(key, values, SETTINGS_CACHE_SECONDS)
    return dict(values)


def settings_invalidate() -> None:
    cache.delete(settings_cache_key())


# --- Menus --------------------------------------------------------------------------------------


def _tree(items: list[MenuItem]) -> list[dict]:
    children: dict[int | None, list[MenuItem]] = {}
    for item in items:
        children.setdefault(item.parent_id, []).append(item)

    def build(parent_id, depth: int) -> list[dict]:
        if depth > MAX_MENU_DEPTH:
            return []
        return [
            {
                "id": item.pk,
                "label": item.label,
                "url": item.url,
                "open_in_new_tab": item.open_in_new_tab,
                "css_class": item.css_class,
                "children": build(item.pk, depth + 1),
            }
            for item in children.get(parent_id, [])
        ]

    return build(None, 1)


def _menu_body(location: str) -> dict | None:
    menu = Menu.objects.filter(location=location).first()
    if menu is None:
        return None
    items = list(MenuItem.objects.filter(menu=menu).order_by("position", "id")[:MAX_MENU_ITEMS])
    return {
        "location": menu.location,
        "name": menu.name,
        "items": _tree(items),
        "updated_at": menu.updated_at.isoformat().replace("+00:00", "Z"),
    }


def menu_at(location: str) -> dict:
    """The menu of `location` with its nested items (two queries; cached until a menu
    changes). 404 `menu_not_found` for an unknown location or one without a menu."""
    if location not in MenuLocation.values:
        raise not_found("menu", location)
    key = MENUS.key({"location": location})
    body = MENUS.get(key) if key else None
    if body is None:
        body = _menu_body(location)
        if body is None:
            raise not_found("menu", location)
        if key:
            MENUS.set(key, body)
    return body


# --- Search -------------------------------------------------------------------------------------


def search(term: str, *, limit: int) -> tuple[list[Product], int, list]:
    """The catalog's weighted search (store.catalog.selectors.search): products and
    categories matching `term`, at most `limit` of each."""
    products, total = catalog_search.search_products(term, limit=limit)
    categories = catalog_search.search_categories(term, limit=limit)
    return products, total, categories


# --- Wishlist -----------------------------------------------------------------------------------


def session_key(token: str | None) -> str:
    """A guest's wishlist key: the SHA-256 of the cart session token ("" without one)."""
    return hashlib.sha256(token.encode()).hexdigest() if token else ""


def owner_filter(*, user=None, token: str | None = None) -> dict | None:
    """The rows of the request's wishlist: the user's when logged in, else the cart
    session's; None when the request has neither (an empty wishlist)."""
    if user is not None and user.is_authenticated:
        return {"user": user}
    key = session_key(token)
    return {"user__isnull": True, "session_key": key} if key else None


def wishlist_items(*, user=None, token: str | None = None) -> list[WishlistItem]:
    owner = owner_filter(user=user, token=token)
    if owner is None:
        return []
    return list(
        WishlistItem.objects.filter(**owner)
        .select_related("product", "product__featured_image")
        .order_by("-created_at", "-id")[: settings.THEME_WISHLIST_MAX_ITEMS]
    )


def wishlist_has(*, user=None, token: str | None = None, product_id: int) -> bool:
    owner = owner_filter(user=user, token=token)
    return (
        owner is not None and WishlistItem.objects.filter(**owner, product_id=product_id).exists()
    )


def active_product(product_id: int) -> Product:
    product = Product.objects.filter(pk=product_id, status=ProductStatus.ACTIVE).first()
    if product is None:
        raise not_found("product", product_id)
    return product
