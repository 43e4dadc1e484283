"""The cache of public product lists, product bodies and facet counts, and what invalidates it.

Version tokens, not a single family version, so that a sale does not empty the cache:

- `catalog` (general): bumped by anything that can change many bodies or which products a
  list holds: a product created or deleted, a change of its status, type, brand, title, slug,
  SKU or date; its categories or terms; categories, brands, attributes, terms, images, store
  settings. Every key below embeds it.
- one token per product (`store:catalog:p:{id}`): bumped by any change of the product, its
  variants, gallery, stock or rating. The product's cached bodies (list summary, single read)
  are keyed by it, so only that product's bodies are read again.
- one token per list dimension (price, stock, stock quantity, rating, popularity, modified):
  bumped when a product's value of it changes. A cached page stores the ids and meta of a
  page; its key embeds the general token and only the dimensions the page's filters and
  order depend on (a price change drops pages filtered or ordered by price, not the others;
  a stock quantity change only the stock_quantity order, a stock status change the pages
  that hide or filter by stock status). The page's bodies come from the product bodies.

Each bump happens at once and again on commit (store.common.cache explains why). The cache is
best-effort: while Redis is unreachable no token can be read, keys are None and callers read
the database (common.cache turns an outage into a miss).

Model signals catch every ORM save and delete (services and admin alike); services that write
with queryset.update() call `invalidate()` themselves, naming the products and dimensions.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_init, post_save

GENERAL = "catalog"
PRICE, STOCK, STOCK_QUANTITY, RATING, POPULARITY, MODIFIED = (
    "price",
    "stock",
    "stockqty",
    "rating",
    "popularity",
    "modified",
)
DIMENSIONS = (PRICE, STOCK, STOCK_QUANTITY, RATING, POPULARITY, MODIFIED)

# Product fields -> what a change of them invalidates beyond the product's own bodies.
_GENERAL_FIELDS = ("status", "type", "brand_id", "title", "slug", "sku", "created_at")
_DIMENSION_FIELDS = {
    "regular_price": PRICE,
    "sale_price": PRICE,
    "price": PRICE,
    "min_price": PRICE,
    "max_price": PRICE,
    "on_sale": PRICE,
    "stock_status": STOCK,
    "stock_quantity": STOCK_QUANTITY,
    "average_rating": RATING,
    "total_sales": POPULARITY,
}
_WATCHED = (*_GENERAL_FIELDS, *_DIMENSION_FIELDS)


def _lifetime() -> int | None:
    return settings.STORE_CATALOG_CACHE_SECONDS or None


def _enabled() -> bool:
    return bool(settings.STORE_CATALOG_CACHE_SECONDS)


def _version_key(name: str) -> str:
    return f"store:catalog:v:{name}"


def _product_key(product_id: int) -> str:
    return f"store:catalog:p:{product_id}"


def _new_token() -> str:
    return uuid.uuid4().hex[:16]


def tokens(names: Iterable[str]) -> dict[str, str] | None:
    """The current tokens of the general version and dimensions; None: read uncached."""
    if not _enabled():
        return None
    keys = {_version_key(name): name for name in names}
    found = cache.get_many(list(keys))
    missing = [key for key in keys if key not in found]
    if missing:
        for key in missing:
            cache.add(key, _new_token(), _lifetime())
        found.update(cache.get_many(missing))
        if any(key not in found for key in keys):
            return None  # the cache is unreachable
    return {keys[key]: value for key, value in found.items()}


def product_tokens(product_ids: list[int]) -> dict[int, str]:
    """Each product's token; a product without one gets one now (no bump: nothing was
    cached under the old one)."""
    keys = {_product_key(pk): pk for pk in product_ids}
    found = cache.get_many(list(keys))
    out = {keys[key]: value for key, value in found.items()}
    fresh = {key: _new_token() for key in keys if key not in found}
    if fresh:
        cache.set_many(fresh, _lifetime())
        out.update({keys[key]: value for key, value in fresh.items()})
    return out


def _digest(args: dict) -> str:
    return hashlib.sha256(
        json.dumps(args, sort_keys=True, default=str, separators=(",", ":")).encode()
    ).hexdigest()[:40]


def entry_key(view: str, args: dict, dimensions: Iterable[str]) -> tuple[str, str] | None:
    """The key of a cached page or facet body under the tokens it depends on, with the
    general token (for the product bodies' keys); None: read uncached."""
    current = tokens((GENERAL, *sorted(set(dimensions))))
    if current is None:
        return None
    stamp = ".".join(f"{name}={current[name]}" for name in sorted(current))
    return f"store:catalog:e2:{view}:{_digest({'tokens': stamp, **args})}", current[GENERAL]


def rendered_key(page_key: str, product_tokens_: dict[int, str], ids: list[int]) -> str:
    """The key of a page's rendered answer under its products' current tokens."""
    stamp = hashlib.sha256(",".join(product_tokens_[pk] for pk in ids).encode()).hexdigest()
    return f"{page_key}:r:{stamp[:32]}"


def body_keys(kind: str, general: str, product_tokens_: dict[int, str]) -> dict[int, str]:
    return {
        pk: f"store:catalog:{kind}:{general}:{pk}:{token}" for pk, token in product_tokens_.items()
    }


def get(key: str):
    return cache.get(key)


def get_many(keys: Iterable[str]) -> dict:
    return cache.get_many(list(keys))


def set_many(entries: dict) -> None:
    if entries and _enabled():
        cache.set_many(entries, settings.STORE_CATALOG_CACHE_SECONDS)


def list_dimensions(args: dict) -> set[str]:
    """The dimensions a list page's membership or order depends on."""
    out = set()
    orderby = args.get("orderby")
    if (
        args.get("min_price") is not None
        or args.get("max_price") is not None
        or args.get("on_sale")
        or orderby == "price"
    ):
        out.add(PRICE)
    if args.get("stock_status") or args.get("hide_out_of_stock"):
        out.add(STOCK)
    if orderby == "stock_quantity":
        out.add(STOCK_QUANTITY)
    if args.get("min_rating") is not None or orderby == "rating":
        out.add(RATING)
    if orderby == "popularity":
        out.add(POPULARITY)
    if orderby == "modified":
        out.add(MODIFIED)
    return out


# --- Invalidation -------------------------------------------------------------------------------


def invalidate(product_ids: Iterable[int] | None = None, dimensions: Iterable[str] = ()) -> None:
    """Without products: everything (the general token). With products: their bodies and the
    pages depending on `dimensions`."""
    keys = [_version_key(name) for name in dimensions]
    if product_ids is None:
        keys.append(_version_key(GENERAL))
    else:
        keys.extend(_product_key(pk) for pk in product_ids)
    if not keys:
        return

    def bump():
        cache.set_many({key: _new_token() for key in keys}, _lifetime())

    bump()
    transaction.on_commit(bump, robust=True)


def _snapshot(sender, instance, **kwargs) -> None:
    # Values as loaded (deferred fields are absent; reading them would query).
    instance._catalog_seen = {name: instance.__dict__.get(name) for name in _WATCHED}


def _on_product_save(sender, instance, created, update_fields=None, **kwargs) -> None:
    seen = getattr(instance, "_catalog_seen", None)
    if created or seen is None:
        invalidate()
    else:
        names = set(update_fields) if update_fields else set(_WATCHED)
        changed = {
            name
            for name in _WATCHED
            if name in names and instance.__dict__.get(name) != seen.get(name)
        }
        if changed & set(_GENERAL_FIELDS):
            invalidate()
        invalidate(
            [instance.pk], {MODIFIED, *(_DIMENSION_FIELDS[n] for n in changed - {*_GENERAL_FIELDS})}
        )
    _snapshot(sender, instance)


def _on_product_delete(sender, instance, **kwargs) -> None:
    invalidate()
    invalidate([instance.pk])


def _on_variant_change(sender, instance, **kwargs) -> None:
    invalidate([instance.product_id], {PRICE, STOCK, STOCK_QUANTITY})


def _on_variant_attribute_change(sender, instance, **kwargs) -> None:
    from store.catalog.models import Variant

    product_id = Variant.objects.filter(pk=instance.variant_id).values_list("product_id", flat=True)
    invalidate(list(product_id))


def _on_gallery_change(sender, instance, **kwargs) -> None:
    invalidate([instance.product_id])


def _on_change(sender, **kwargs) -> None:
    invalidate()


def connect_invalidation() -> None:
    from store.catalog import models
    from store.media.signals import media_changed
    from store.settings.signals import section_changed

    uid = "store.catalog.cache"
    post_init.connect(_snapshot, sender=models.Product, dispatch_uid=f"{uid}.product.init")
    post_save.connect(_on_product_save, sender=models.Product, dispatch_uid=f"{uid}.product.save")
    post_delete.connect(
        _on_product_delete, sender=models.Product, dispatch_uid=f"{uid}.product.delete"
    )
    for model, receiver in (
        (models.Variant, _on_variant_change),
        (models.VariantAttribute, _on_variant_attribute_change),
        (models.ProductImage, _on_gallery_change),
    ):
        post_save.connect(receiver, sender=model, dispatch_uid=f"{uid}.{model.__name__}.save")
        post_delete.connect(receiver, sender=model, dispatch_uid=f"{uid}.{model.__name__}.delete")
    for model in (models.Category, models.Brand, models.Attribute, models.AttributeTerm):
        post_save.connect(_on_change, sender=model, dispatch_uid=f"{uid}.{model.__name__}.save")
        post_delete.connect(_on_change, sender=model, dispatch_uid=f"{uid}.{model.__name__}.delete")
    for through in (models.Product.categories.through, models.Product.attribute_terms.through):
        m2m_changed.connect(_on_change, sender=through, dispatch_uid=f"{uid}.{through.__name__}")
    media_changed.connect(_on_change, dispatch_uid=f"{uid}.media")
    section_changed.connect(_on_change, dispatch_uid=f"{uid}.settings")
