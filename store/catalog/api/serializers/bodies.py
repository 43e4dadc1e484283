"""The public product reads as the bytes of their answers, through the catalog cache.

`list_content` answers GET /products (a public list: read from the cache when cacheable) and
`detail_content` GET /products/{id} and /products/slug/{slug} for the public. Both read the
cache's tokens first, in one round trip (store.catalog.cache.read_tokens); a token found
missing is made there, so a cold read does not look for entries that cannot exist.

The bodies themselves come from the database as JSON text (store.catalog.selectors.
product_json: one query for a single read, the COUNT and one query for a page) when it can
write them (PostgreSQL, media on the local file system) and no callback is registered on the
product hooks (a callback takes the model instance and the dict); otherwise they are built in
Python (products.product_summary / product_detail, then the renderer). Both give the same
bytes. A body whose media URLs the database cannot write (a file name to percent-encode) is
built in Python too. A cached page keeps its entries (`j`: JSON text, `s`: the dict of the
Python path), so a page whose products changed is rebuilt from the entries of those that did
not.
"""

from __future__ import annotations

from typing import Any

from rest_framework.renderers import JSONRenderer

from common.pg_json import UNWRITTEN_URL, join_entries
from store.catalog import cache as catalog_cache
from store.catalog.selectors import product_json
from store.catalog.selectors import products as selectors
from store.common import hooks
from store.common.errors import not_found
from store.settings import selectors as store_settings

from .products import product_detail, product_summary

_HOOKS = (hooks.API_PRODUCT_RESPONSE, hooks.API_PRODUCTS_RESPONSE)
_NO_CALLBACKS = ".".join("-" for _ in _HOOKS)


def hooks_stamp() -> str:
    """Cached bodies carry the hooks' output: keyed by the hooks registered (a callback added
    or removed at run time is not hidden by bodies cached before)."""
    return hooks.registration(*_HOOKS)


def database_bodies() -> bool:
    """Whether the bodies are written by the database (see the module's docstring)."""
    return product_json.enabled() and hooks_stamp() == _NO_CALLBACKS


def _render(data) -> bytes:
    return JSONRenderer().render(data)


# --- Lists ----------------------------------------------------------------------------------------


def _inventory_settings() -> dict:
    inventory = store_settings.get_section("inventory")
    return {
        "stock_display_format": inventory["stock_display_format"],
        "low_stock_threshold": inventory["low_stock_threshold"],
    }


def _summary(product) -> dict:
    return hooks.apply_filters(hooks.API_PRODUCT_RESPONSE, product_summary(product), product)


def _page_bytes(kind: str, entries: list, args: dict, meta: dict, inventory: dict) -> bytes:
    """The list's answer from its entries of `kind`: JSON texts (`j`, database bodies, which
    no hook sees) or dicts (`s`, the Python path)."""
    if kind == "j":
        rest = _render({"data": [], "meta": meta, "inventory_settings": inventory})
        return b'{"data":' + join_entries(entries).encode() + rest[len(b'{"data":[]') :]
    data = hooks.apply_filters(hooks.API_PRODUCTS_RESPONSE, entries, args, meta["total"])
    return _render({"data": data, "meta": meta, "inventory_settings": inventory})


def _written(entries: dict[int, str]) -> dict[int, str]:
    """`entries` (JSON texts from the database), those whose media URLs it could not write (a
    file name that needs percent-encoding, which the store never writes) built in Python."""
    unwritten = [pk for pk, text in entries.items() if UNWRITTEN_URL in text]
    if unwritten:
        for product in selectors.rows_in_order(unwritten):
            entries[product.pk] = _render(product_summary(product)).decode()
    return entries


def _entries(kind: str, ids: list[int]) -> dict[int, Any]:
    """The list entries of the active products `ids`, of `kind`, read from the database."""
    if kind == "j":
        return _written(dict(product_json.entries_in_order(ids)))
    return {product.pk: _summary(product) for product in selectors.products_by_ids(ids)}


def list_content(args: dict, *, cacheable: bool) -> bytes:
    """GET /products for `args` (selectors.products.list_args, after the query-args hook).

    A cached page is its ids, each product's token when it was built, its meta and its
    answer, and beside them its entries (read only to rebuild it). Cold, a page costs the
    tokens (one round trip, a second to write those made), the COUNT and the page's entries
    (two queries; a third stores the entries the page had to build: product_json.finish),
    the products' tokens (one round trip) and the writes of the page and of the products'
    tokens made."""
    page_key = None
    if cacheable:
        page_key = catalog_cache.page_key("products", args, catalog_cache.list_dimensions(args))
    if page_key is not None and not page_key.fresh:
        content = _cached_page(page_key.key, page_key.general)
        if content is not None:
            return content
    args["attributes"] = selectors.resolve_attribute_filters(args.get("attributes") or {})
    entries: dict[int, Any]
    if database_bodies():
        kind = "j"
        page = product_json.entry_page(args)
        entries = _written(dict(page.items))
    else:
        kind = "s"
        page = selectors.product_page(args)
        entries = {product.pk: _summary(product) for product in page.items}
    meta, inventory = page.meta(), _inventory_settings()
    content = _page_bytes(kind, list(entries.values()), args, meta, inventory)
    if page_key is not None:
        ids = list(entries)
        tokens = catalog_cache.read_tokens((), ids, write=False, listed=True)
        if tokens is not None:
            cached = {
                "kind": kind,
                "ids": ids,
                "tokens": [tokens.products[pk] for pk in ids],
                "args": args,
                "meta": meta,
                "inventory": inventory,
                "content": content,
            }
            catalog_cache.set_many(
                {page_key.key: cached, _entries_key(page_key.key): list(entries.values())}, tokens
            )
    return content


def _entries_key(key: str) -> str:
    return f"{key}:entries"


def _cached_page(key: str, general: str) -> bytes | None:
    """A cached page's answer while none of its products changed (two round trips: the
    page, the products' tokens). Otherwise the page is rebuilt from its entries, those of the
    changed products read again: from the cache when another page rebuilt them already (kept
    per product, under its token), else from the database (one query, whatever their
    number). None: not cached, or a product left the list since."""
    cached = catalog_cache.get(key)
    if cached is None:
        return None
    ids = cached["ids"]
    tokens = catalog_cache.product_tokens(ids, listed=True)
    changed = [pk for pk, token in zip(ids, cached["tokens"], strict=True) if tokens[pk] != token]
    if not changed:
        return cached["content"]
    kind = "j" if database_bodies() else "s"
    if kind != cached["kind"]:
        return None  # the hooks changed since: build the page again
    keys = catalog_cache.body_keys(kind, general, {pk: tokens[pk] for pk in changed})
    found = catalog_cache.get_many([_entries_key(key), *keys.values()])
    if _entries_key(key) not in found:
        return None
    renewed = {pk: found[keys[pk]] for pk in changed if keys[pk] in found}
    missing = [pk for pk in changed if pk not in renewed]
    read = _entries(kind, missing) if missing else {}
    if len(read) != len(missing):
        return None
    renewed.update(read)
    entries = [
        renewed.get(pk, entry) for pk, entry in zip(ids, found[_entries_key(key)], strict=True)
    ]
    content = _page_bytes(kind, entries, cached["args"], cached["meta"], cached["inventory"])
    catalog_cache.set_many(
        {
            key: {**cached, "tokens": [tokens[pk] for pk in ids], "content": content},
            _entries_key(key): entries,
            **{keys[pk]: entry for pk, entry in read.items()},
        }
    )
    return content


# --- Single reads ---------------------------------------------------------------------------------


def _detail_load(product_id: int | None, slug: str | None) -> tuple[int, str, bytes]:
    """An active product's (id, slug, answer), by id or else by slug; 404 product_not_found."""
    if database_bodies():
        found = product_json.detail(product_id=product_id, slug=slug)
        if found is None:
            raise not_found("product", product_id if slug is None else slug)
        pk, product_slug, text = found
        if UNWRITTEN_URL not in text:
            return pk, product_slug, text.encode()
        product_id = pk  # a media URL to percent-encode: built in Python
    if product_id is not None:
        product = selectors.product_get(product_id)
    else:
        product = selectors.product_get_by_slug(slug or "")
    data = hooks.apply_filters(hooks.API_PRODUCT_RESPONSE, product_detail(product), product)
    return product.pk, product.slug, _render(data)


def detail_content(*, product_id: int | None = None, slug: str | None = None) -> bytes:
    """The public answer of a single read, by id (`product_id`) or else by `slug`; 404
    product_not_found.

    From the cache while the product's token is unchanged: two round trips (the tokens, the
    body), no query. Cold: the tokens (one round trip, a second to write those made), one
    query, one write. By slug, the product id the slug named is cached too (a round trip more
    when cached; on a first read the product's token is read after its row)."""
    ids = () if product_id is None else (product_id,)
    tokens = catalog_cache.read_tokens((catalog_cache.GENERAL,), ids)
    if tokens is None:
        return _detail_load(product_id, slug)[2]
    general = f"{tokens.versions[catalog_cache.GENERAL]}.{hooks_stamp()}"
    slug_key = None
    if product_id is None and slug is not None:
        slug_key = catalog_cache.slug_key(general, slug)
        named = None if tokens.fresh else catalog_cache.get(slug_key)
        if isinstance(named, int):
            product_tokens = catalog_cache.read_tokens((), (named,))
            if product_tokens is not None:
                product_id, tokens = named, product_tokens
    if product_id is not None and not tokens.fresh:
        cached = catalog_cache.get(
            catalog_cache.body_keys("d", general, tokens.products)[product_id]
        )
        if cached is not None and (slug is None or cached[0] == slug):
            return cached[1]
    pk, product_slug, content = _detail_load(None if slug_key else product_id, slug)
    if pk not in tokens.products:
        tokens = catalog_cache.read_tokens((), (pk,)) or tokens
    entries: dict[str, object] = {
        catalog_cache.body_keys("d", general, tokens.products)[pk]: (product_slug, content)
    }
    if slug_key is not None:
        entries[slug_key] = pk
    catalog_cache.set_many(entries)
    return content
