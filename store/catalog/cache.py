"""The cache of public product lists, product bodies and facet counts, and what invalidates it.

Version tokens, not a single family version, so that a sale does not empty the cache:

- `catalog` (general): bumped by anything that can change many bodies or which products a
  list holds: a product created or deleted, a change of its status, type, brand, title, slug,
  SKU or date; its categories or terms; categories, brands, attributes, terms, images, store
  settings. Every key below embeds it.
- one token per product, bumped by any change of the product, its variants, gallery, stock
  or rating; its cached bodies are keyed by it, so only that product's bodies are read again.
  A single read keys its body by the product's own key (`store:catalog:p:{id}`, which
  expires: requests may name ids that do not exist); list pages by the product's field in
  one Redis hash (`store:catalog:listed`, fields of products a page showed), so that a
  page's hundred tokens cost one HMGET and one HSET, not a hundred keys' names, checks and
  pickles. A bump sets a new key token and deletes the field (a reader makes a new one).
- one token per list dimension (price, stock, stock quantity, rating, popularity, modified):
  bumped when a product's value of it changes. A cached page stores its ids, each product's
  token as built, its meta and its answer (its entries beside it); its key embeds the general token
  and only the dimensions the page's filters and order depend on (a price change drops pages
  filtered or ordered by price, not the others; a stock quantity change only the
  stock_quantity order, a stock status change the pages that hide or filter by stock
  status). A page whose products' tokens moved is rebuilt from its entries, the changed
  products' entries read again (store.catalog.api.serializers.bodies).

Each bump happens at once and again on commit (store.common.cache explains why). A token that
is missing (never made, expired, Redis emptied) is made by the reader that finds it missing and
written at once, before that reader reads the database: whatever it stores under the token was
then read after the token existed, so a change committed later bumps the token again and leaves
the entry unread. Two readers that both find it missing each write one (the last stays; what
the other stored is never read and expires). A reader that made its tokens knows that nothing
is cached under them (`fresh`) and skips those reads. The cache is best-effort: an unreachable
Redis reads as missing tokens and drops the writes (common.cache), so every read goes to the
database until it is back. With STORE_CATALOG_CACHE_SECONDS at 0 nothing is cached: keys are
None and callers read the database. One read cannot follow the rule: a page built from the
database learns its products (and reads their tokens) only with its rows, so a change
committed in the moment between the two could stay on that page until the product changes
again or the page expires; the page's key itself (general and dimension tokens) is read
first, as the rule asks.

Model signals catch every ORM save and delete (services and admin alike); services that write
with queryset.update() call `invalidate()` themselves, naming the products and dimensions.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache, caches
from django.db import transaction
from django.db.models.signals import m2m_changed, post_delete, post_init, post_save

from common import cache as common_cache

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


LISTED = "store:catalog:listed"  # the hash of the listed products' tokens (field: the id)


def _new_token() -> str:
    return uuid.uuid4().hex[:16]


@dataclass(frozen=True)
class Tokens:
    """Version tokens (`versions`, by name) and product tokens (`products`, by id) as read.
    `made`: the keys' tokens that were missing, made by this reader, by key; `written`: whether
    they are written already (else the caller writes them with its entries: `set_many`).
    `fresh`: some token was made, so nothing is cached under the keys they stamp. (Listed
    products' tokens are made and written by the read itself: see `read_tokens`.)"""

    versions: dict[str, str]
    products: dict[int, str]
    made: dict[str, str]
    written: bool

    @property
    def fresh(self) -> bool:
        return bool(self.made)


def read_tokens(
    names: Iterable[str] = (),
    product_ids: Iterable[int] = (),
    *,
    write: bool = True,
    listed: bool = False,
) -> Tokens | None:
    """The current tokens of the general version and dimensions `names` and of the products
    `product_ids`, in one round trip; with `write`, the missing ones are made and written in
    the same one (common.cache.get_or_set_many: before the caller reads the database, see the
    module's docstring; two readers that both miss share the first one's token). Without `write`
    the caller writes them itself, with its entries (a list page whose products are known only
    once read). None: caching is off.

    `listed`: the products are rows the database answered (a page's), not ids a request named:
    their tokens are the LISTED hash's fields, read and those missing made and written in one
    script call (common.cache.hash_tokens; a made token is a new stamp and the field's
    position), whatever `write` says, and kept without an expiry (a bump deletes the field).
    A token made for an id a request named is a key that expires, so that requests for ids
    that do not exist fill nothing for long."""
    if not _enabled():
        return None
    version_keys = {_version_key(name): name for name in names}
    product_keys = {} if listed else {_product_key(pk): pk for pk in product_ids}
    keys = [*version_keys, *product_keys]
    if keys and write:  # read, and the missing made and written, in one round trip
        candidates = {key: _new_token() for key in keys}
        found = common_cache.get_or_set_many(caches["default"], candidates, _lifetime() or 0)
        made = {key: token for key, token in candidates.items() if found.get(key) == token}
        # An unreachable Redis answers nothing: fresh tokens, which nothing is cached under.
        made.update({key: token for key, token in candidates.items() if key not in found})
        found = {**candidates, **found}
    else:
        found = cache.get_many(keys) if keys else {}
        made = {key: _new_token() for key in keys if key not in found}
        found.update(made)
    products = {pk: found[key] for key, pk in product_keys.items()}
    if listed:
        ids = list(product_ids)
        listed_tokens = common_cache.hash_tokens(
            caches["default"], LISTED, [str(pk) for pk in ids], f"{_new_token()}."
        )
        # An unreachable Redis answers no tokens: fresh ones, which nothing is cached under.
        listed_tokens = listed_tokens or [f"{_new_token()}.{n}" for n in range(len(ids))]
        products = dict(zip(ids, listed_tokens, strict=True))
    return Tokens(
        versions={name: found[key] for key, name in version_keys.items()},
        products=products,
        made=made,
        written=write,
    )


def tokens(names: Iterable[str]) -> dict[str, str] | None:
    """The current tokens of the general version and dimensions; None: read uncached."""
    read = read_tokens(names)
    return None if read is None else read.versions


def product_tokens(product_ids: list[int], *, listed: bool = False) -> dict[int, str]:
    """Each product's token; a product without one gets one now (no bump: nothing was
    cached under the old one). `listed`: as read_tokens."""
    read = read_tokens((), product_ids, listed=listed)
    return {} if read is None else read.products


def _digest(args: dict) -> str:
    return hashlib.sha256(
        json.dumps(args, sort_keys=True, default=str, separators=(",", ":")).encode()
    ).hexdigest()[:40]


@dataclass(frozen=True)
class PageKey:
    key: str  # the page (or facet body) under the tokens it depends on
    general: str  # the general token, which stamps the product bodies' keys
    fresh: bool  # a token was made just now: nothing is cached under `key` yet


def page_key(view: str, args: dict, dimensions: Iterable[str]) -> PageKey | None:
    """The key of a cached page or facet body under the tokens it depends on; None: read
    uncached."""
    read = read_tokens((GENERAL, *sorted(set(dimensions))))
    if read is None:
        return None
    current = read.versions
    stamp = ".".join(f"{name}={current[name]}" for name in sorted(current))
    return PageKey(
        f"store:catalog:e3:{view}:{_digest({'tokens': stamp, **args})}",
        current[GENERAL],
        read.fresh,
    )


def entry_key(view: str, args: dict, dimensions: Iterable[str]) -> tuple[str, str] | None:
    """`page_key` as (key, general token); None: read uncached."""
    found = page_key(view, args, dimensions)
    return None if found is None else (found.key, found.general)


def body_keys(kind: str, general: str, product_tokens_: dict[int, str]) -> dict[int, str]:
    """The keys of the products' cached bodies of `kind`: `s` a list entry (a dict, built in
    Python), `j` a list entry (its JSON text, written by the database), both kept when a page
    is rebuilt, for the other pages that show the product; `d` a single read (its slug and
    rendered JSON)."""
    return {
        pk: f"store:catalog:{kind}:{general}:{pk}:{token}" for pk, token in product_tokens_.items()
    }


def slug_key(general: str, slug: str) -> str:
    """The key of the product id a slug named when read (single reads by slug)."""
    return f"store:catalog:slug:{general}:{hashlib.sha256(slug.encode()).hexdigest()[:32]}"


def get(key: str):
    return cache.get(key)


def get_many(keys: Iterable[str]) -> dict:
    return cache.get_many(list(keys))


def set_many(entries: dict, tokens_: Tokens | None = None) -> None:
    """Store `entries`, with the tokens `tokens_` made and left for the caller to write (in the
    same round trip)."""
    if not _enabled():
        return
    if tokens_ is not None and not tokens_.written:
        entries = {**tokens_.made, **entries}
    if len(entries) == 1:  # one SET ... EX, not a MULTI of MSET and EXPIRE
        ((key, value),) = entries.items()
        cache.set(key, value, settings.STORE_CATALOG_CACHE_SECONDS)
    elif entries:
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
    fields: list[str] = []
    if product_ids is None:
        keys.append(_version_key(GENERAL))
    else:
        fields = [str(pk) for pk in product_ids]
        keys.extend(_product_key(int(pk)) for pk in fields)
    if not keys:
        return

    def bump():  # the new tokens and the listed fields' deletion: one round trip
        common_cache.set_many_hash_delete(
            caches["default"], {key: _new_token() for key in keys}, _lifetime(), LISTED, fields
        )

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
