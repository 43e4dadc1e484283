"""The locks and the ledger (private to this package): products are locked in pk order (a
product's row is the lock of its variants' stock), then their stock levels in pk order; each
change of a level is posted with its StockMovement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import BooleanField, F, Q, QuerySet
from django.db.models.expressions import RawSQL

from common.compiled import CaseUpdate, CompiledQuery
from common.errors import Conflict
from store.catalog.models import Product, Variant
from store.common.accounts import logged_in
from store.common.errors import not_found
from store.inventory.models import StockLevel, StockMovement, Warehouse


def _warehouse_for_update(warehouse_id: int) -> Warehouse:
    warehouse = Warehouse.objects.select_for_update().filter(pk=warehouse_id).first()
    if warehouse is None:
        raise not_found("warehouse", warehouse_id)
    return warehouse


def _lock_products(product_ids: Iterable[int]) -> list[int]:
    """Lock product rows in pk order (a product's row is the lock of its variants' stock)."""
    ids = sorted(set(product_ids))
    if not ids:
        return []
    return list(
        Product.objects.select_for_update()
        .filter(pk__in=ids)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _item_filter(pairs: Iterable[tuple[int, int | None]]) -> Q:
    query = Q(pk__in=[])
    for product_id, variant_id in pairs:
        if variant_id is None:
            query |= Q(product_id=product_id, variant__isnull=True)
        else:
            query |= Q(variant_id=variant_id)
    return query


def _lock_levels(query: Q) -> list[StockLevel]:
    """Lock levels in pk order (their warehouse is read along, not locked)."""
    return list(_levels(query, with_skus=False))


def _lock_stock(
    product_ids: Iterable[int],
    *,
    level_ids: Iterable[int] = (),
    pairs: Iterable[tuple[int, int | None]] = (),
    with_skus: bool = False,
) -> list[StockLevel]:
    """Lock the products (pk order), then their levels (pk order, their warehouse read
    along): the levels `level_ids`, or those of the items `pairs` (product, variant or None).
    The order every writer follows. On PostgreSQL in one statement, compiled once per shape
    (common.compiled): the products are locked by an uncorrelated subquery, which runs once
    (an InitPlan, as a one-time filter) before any level is read or locked, so holding the
    products costs no round trip of its own. `with_skus`: each level carries its product's
    SKU as `product_sku` (what a movement records)."""
    ids = sorted(set(product_ids))
    level_ids = sorted(set(level_ids))
    # Items in a fixed order: those of products without variants, then variants'.
    items = sorted(set(pairs), key=lambda pair: (pair[1] is not None, pair[0], pair[1] or 0))
    if not level_ids and not items:
        return []  # no level asked for: nothing to lock
    compiled = len(ids) + len(level_ids) + len(items) <= COMPILED_LOCK_PARAMETERS
    if ids and connection.vendor == "postgresql" and compiled:
        shape = (len(ids), len(level_ids), tuple(v is None for _p, v in items), with_skus)
        args = (*ids, *level_ids, *(p if v is None else v for p, v in items))
        return _locking(shape).instances(*args)
    query = Q(pk__in=level_ids) if level_ids else _item_filter(items)
    if ids and connection.vendor == "postgresql":  # a large shape: built each time
        return list(_levels(query, with_skus).filter(_products_locked(ids)))
    _lock_products(ids)
    return list(_levels(query, with_skus))


def _levels(query: Q, with_skus: bool) -> QuerySet[StockLevel]:
    """The levels of `query` to lock, in pk order, their warehouse read along (not locked)."""
    levels = (
        StockLevel.objects.select_for_update(of=("self",))
        .filter(query)
        .select_related("warehouse")
        .order_by("pk")
    )
    return levels.annotate(product_sku=F("product__sku")) if with_skus else levels


def _products_locked(ids: Sequence[int]) -> RawSQL:
    """The filter that locks the products `ids` first (an uncorrelated subquery: PostgreSQL
    runs it once, before it reads a level)."""
    table = connection.ops.quote_name(Product._meta.db_table)
    marks = ", ".join(["%s"] * len(ids))
    return RawSQL(  # noqa: S611 - our own SQL, the ids as parameters
        f"(SELECT count(*) FROM (SELECT 1 FROM {table} WHERE id IN ({marks}) "  # noqa: S608
        f"ORDER BY id FOR UPDATE) AS locked) >= 0",
        list(ids),
        output_field=BooleanField(),
    )


# The lock statements compiled once per shape take at most this many parameters (products,
# levels, items); a larger one is built each time.
COMPILED_LOCK_PARAMETERS = 64
_LOCKING: dict[tuple[Any, ...], CompiledQuery] = {}


def _locking(shape: tuple[Any, ...]) -> CompiledQuery:
    """The lock statement of a shape (numbers of products and levels, which items are a
    product's own, SKUs or not), compiled once per connection."""
    found = _LOCKING.get(shape)
    if found is not None:
        return found
    product_count, level_count, own, with_skus = shape

    def build(*args: int) -> QuerySet[StockLevel]:
        ids, rest = args[:product_count], args[product_count:]
        if level_count:
            query = Q(pk__in=rest)
        else:
            query = Q()
            for product_only, value in zip(own, rest, strict=True):
                query |= (
                    Q(product_id=value, variant__isnull=True)
                    if product_only
                    else Q(variant_id=value)
                )
        return _levels(query, with_skus).filter(_products_locked(ids))

    width = product_count + level_count + len(own)
    found = _LOCKING[shape] = CompiledQuery(
        build, tuple(range(-1, -width - 1, -1)), tuple(range(-width - 1, -2 * width - 1, -1))
    )
    return found


def _level(warehouse: Warehouse, product_id: int, variant_id: int | None) -> StockLevel:
    """The level of an item in a warehouse, created at zero (the caller holds the product lock)."""
    level, _created = StockLevel.objects.get_or_create(
        warehouse=warehouse, product_id=product_id, variant_id=variant_id
    )
    level.warehouse = warehouse
    return level


def _sku(product_id: int, variant_id: int | None) -> str:
    if variant_id is not None:
        return Variant.objects.filter(pk=variant_id).values_list("sku", flat=True).first() or ""
    return Product.objects.filter(pk=product_id).values_list("sku", flat=True).first() or ""


def _skus(
    levels: Iterable[StockLevel], product_skus: dict[int, str] | None = None
) -> dict[int, str]:
    """{level id: SKU of its item} in two queries (one when the products' SKUs are given,
    none when no level is a variant's either)."""
    levels = list(levels)
    products = product_skus
    if products is None:
        products = dict(
            Product.objects.filter(pk__in={lv.product_id for lv in levels}).values_list("pk", "sku")
        )
    variant_ids = {lv.variant_id for lv in levels if lv.variant_id}
    variants = (
        dict(Variant.objects.filter(pk__in=variant_ids).values_list("pk", "sku"))
        if variant_ids
        else {}
    )
    return {
        lv.pk: (
            variants.get(lv.variant_id, "") if lv.variant_id else products.get(lv.product_id, "")
        )
        for lv in levels
    }


@dataclass(frozen=True)
class Reference:
    """What caused a change: `type` and `id` (an order: "order", "42"), who, and a note."""

    type: str = ""
    id: str = ""
    actor: object = None
    note: str = ""


@dataclass
class _Posting:
    level: StockLevel
    delta: int
    key: str
    line: int | None = None
    sku: str = ""


# The levels' UPDATE of every posting (quantity + CASE, updated now), compiled per count.
_LEVELS_ADD = CaseUpdate(StockLevel, ["quantity"], increment=True, now=["updated_at"])


def _post(
    level: StockLevel,
    delta: int,
    *,
    reason: str,
    reference: Reference,
    key: str,
    line: int | None = None,
    sku: str = "",
) -> StockMovement:
    """Change one locked level by `delta` and write its movement."""
    return _post_many([_Posting(level, delta, key, line, sku)], reason=reason, reference=reference)[
        0
    ]


def _post_many(
    postings: list[_Posting], *, reason: str, reference: Reference, savepoint: bool = True
) -> list[StockMovement]:
    """Change locked levels and write their movements in two statements whatever their number:
    one UPDATE of the levels (`quantity + CASE ...`, compiled once per number of levels:
    common.compiled.CaseUpdate) and one INSERT of the movements. A level posted twice adds
    both deltas, each movement with its own `quantity_after`.

    A movement posted twice (its idempotency key) is refused with 409
    `duplicate_stock_movement`. With `savepoint=False` the INSERT runs without a savepoint of
    its own (two round trips fewer): the refusal then fails the caller's whole transaction,
    which suits a caller that lets it propagate anyway (an order's status move)."""
    if not postings:
        return []
    deltas: dict[int, tuple[int]] = {}
    for posting in postings:
        deltas[posting.level.pk] = (deltas.get(posting.level.pk, (0,))[0] + posting.delta,)
    _LEVELS_ADD.execute(deltas)
    actor = logged_in(reference.actor)
    rows = []
    for posting in postings:
        level = posting.level
        level.quantity += posting.delta
        rows.append(
            StockMovement(
                level=level,
                warehouse_id=level.warehouse_id,
                product_id=level.product_id,
                variant_id=level.variant_id,
                sku=posting.sku[:64],
                quantity=posting.delta,
                quantity_after=level.quantity,
                reason=reason,
                reference_type=reference.type,
                reference_id=str(reference.id),
                reference_line=posting.line,
                note=reference.note[:255],
                idempotency_key=posting.key,
                actor=actor,
            )
        )
    try:
        with transaction.atomic(savepoint=savepoint):
            return StockMovement.objects.bulk_create(rows)
    except IntegrityError:
        keys = ", ".join(repr(posting.key) for posting in postings)
        raise Conflict(
            f"The stock change {keys} was already made.", code="duplicate_stock_movement"
        ) from None
