"""The stored list entries (models.ProductListEntry): storing those a page built, and what
leaves them unread.

A page's query reads a product's stored entry only while it is valid, which the query checks
itself (selectors.product_json): built from the version of the product row it reads
(PostgreSQL's xmin and ctid, renewed by every UPDATE of the row), in the current generation
(ListEntryGeneration) and for the current media base. Otherwise it builds the entry, as it did
before entries were stored, and `store` keeps it. Nothing here deletes an entry to invalidate
it: an entry built from an older snapshot and stored after a change committed would then be
served; stamped with what it was built from, it is only stored in vain and built again.

What an entry shows beside its product's own row, and what moves the stamp:

- the product's own columns (price, stock, brand_id, featured_image_id...): any UPDATE of the
  row, whichever way it is written, gives it a new version;
- its categories (the m2m rows, which leave the product row alone): `touch` updates the
  products' rows (a new version each) from m2m_changed, either side of the relation;
- categories, brands and images themselves (names, slugs, order, files, renditions, alt
  texts; deletions): `bump` moves the generation on, in the writer's transaction, so every
  entry built before it commits is left unread (those edits are rare; the entries are built
  again as pages are read).

Through-table rows written without the ORM's m2m managers (bulk_create of the through model,
SQL) send no signal: run `manage.py rebuild_list_entries` after such an import. On databases
other than PostgreSQL entries are neither read nor kept (the Python path builds the bodies).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from django.db import connections, router
from django.db.models import F, QuerySet

from common import pg_json
from store.catalog.models import ListEntryGeneration, Product, ProductListEntry

_BUMP_SQL = (
    'INSERT INTO "store_catalog_listentrygeneration" AS g ("id", "value") VALUES (1, 1) '
    'ON CONFLICT ("id") DO UPDATE SET "value" = g."value" + 1'
)


def kept() -> bool:
    """Whether list entries are stored, hence invalidated (PostgreSQL)."""
    return pg_json.enabled_for(Product)


_STORE_SQL = (
    'INSERT INTO "store_catalog_productlistentry" '
    '("product_id", "row_version", "generation", "base", "body") '
    'SELECT v."id", v."version", v."generation", %s, v."body" '
    'FROM json_to_recordset(%s::json) AS v("id" bigint, "version" text, "generation" bigint, '
    '"body" text) ORDER BY v."id" '
    'ON CONFLICT ("product_id") DO UPDATE SET "row_version" = EXCLUDED."row_version", '
    '"generation" = EXCLUDED."generation", "base" = EXCLUDED."base", "body" = EXCLUDED."body"'
)


def store(built: dict[int, tuple[str, int, str]], base: str) -> None:
    """Store the entries a query built: product id -> (row version, generation, entry text),
    for the media base `base`. One statement, by product id (two pages storing the same
    products lock their rows in the same order); an entry stored meanwhile is replaced (if it
    is older, it is simply built again on its next read).

    The rows go as one JSON parameter (json_to_recordset), not through bulk_create: Django's
    bulk insert on PostgreSQL sends each column as an array, and quoting a hundred JSON texts
    into an array literal (a regular expression per quote) cost 35 ms of Python; a VALUES
    list of 500 parameters cost the driver milliseconds to parse. json.dumps writes them in
    a fraction of a millisecond and the statement stays the same (prepared)."""
    rows = [
        {"id": pk, "version": version, "generation": generation, "body": body}
        for pk, (version, generation, body) in built.items()
    ]
    with connections[router.db_for_write(ProductListEntry)].cursor() as cursor:
        cursor.execute(_STORE_SQL, [base, json.dumps(rows, ensure_ascii=False)])


def bump() -> None:
    """Leave every stored entry unread: the generation moves on (made by the first bump)."""
    if kept():
        alias = router.db_for_write(ListEntryGeneration)
        with connections[alias].cursor() as cursor:
            cursor.execute(_BUMP_SQL)


def touch(product_ids: Iterable[int] | QuerySet[Any, Any]) -> None:
    """Leave the stored entries of the products `product_ids` (ids, or a queryset of ids)
    unread: their rows get a new version (an UPDATE that changes no value)."""
    if kept():
        Product.objects.filter(pk__in=product_ids).update(updated_at=F("updated_at"))


def clear() -> None:
    """Drop every stored entry (manage.py rebuild_list_entries builds them again)."""
    ProductListEntry.objects.all().delete()


# --- Signals ------------------------------------------------------------------------------------


def _on_taxonomy_save(sender: Any, instance: Any, created: bool, **kwargs: Any) -> None:
    if not created:  # a new category, brand or image is in no entry yet
        bump()


def _on_taxonomy_delete(sender: Any, instance: Any, **kwargs: Any) -> None:
    bump()


def _on_media_changed(sender: Any, **kwargs: Any) -> None:
    bump()


def _on_categories_changed(
    sender: Any,
    instance: Any,
    action: str,
    reverse: bool,
    model: Any,
    pk_set: set[int] | None,
    **kwargs: Any,
) -> None:
    if not reverse:  # product.categories.add/remove/set/clear
        if action in ("post_add", "post_remove", "post_clear") and (
            pk_set or action == "post_clear"
        ):
            touch([instance.pk])
    elif action in ("post_add", "post_remove"):  # category.products.add/remove
        if pk_set:
            touch(pk_set)
    elif action == "pre_clear":  # category.products.clear(): its products, before they go
        through = Product.categories.through.objects.filter(category_id=instance.pk)
        touch(through.values("product_id"))


def connect() -> None:
    from django.db.models.signals import m2m_changed, post_delete, post_save

    from store.catalog.models import Brand, Category
    from store.media.models import MediaImage
    from store.media.signals import media_changed

    uid = "store.catalog.list_entries"
    for model in (Category, Brand, MediaImage):
        post_save.connect(_on_taxonomy_save, sender=model, dispatch_uid=f"{uid}.{model.__name__}")
        post_delete.connect(
            _on_taxonomy_delete, sender=model, dispatch_uid=f"{uid}.{model.__name__}.delete"
        )
    media_changed.connect(_on_media_changed, dispatch_uid=f"{uid}.media")
    m2m_changed.connect(
        _on_categories_changed,
        sender=Product.categories.through,
        dispatch_uid=f"{uid}.categories",
    )
