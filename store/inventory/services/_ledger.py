"""The locks and the ledger (private to this package): products are locked in pk order (a
product's row is the lock of its variants' stock), then their stock levels in pk order; each
change of a level is posted with its StockMovement.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Case, F, IntegerField, Q, Value, When
from django.utils import timezone

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
    return list(
        StockLevel.objects.select_for_update(of=("self",))
        .filter(query)
        .select_related("warehouse")
        .order_by("pk")
    )


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


def _skus(levels: Iterable[StockLevel]) -> dict[int, str]:
    """{level id: SKU of its item} in two queries."""
    levels = list(levels)
    products = dict(
        Product.objects.filter(pk__in={lv.product_id for lv in levels}).values_list("pk", "sku")
    )
    variants = dict(
        Variant.objects.filter(
            pk__in={lv.variant_id for lv in levels if lv.variant_id}
        ).values_list("pk", "sku")
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
    postings: list[_Posting], *, reason: str, reference: Reference
) -> list[StockMovement]:
    """Change locked levels and write their movements in two statements whatever their number:
    one UPDATE of the levels (`quantity + CASE ...`, an F() expression) and one INSERT of the
    movements. A level posted twice adds both deltas, each movement with its own
    `quantity_after`."""
    if not postings:
        return []
    deltas: dict[int, int] = defaultdict(int)
    for posting in postings:
        deltas[posting.level.pk] += posting.delta
    change = Case(
        *(When(pk=pk, then=Value(delta)) for pk, delta in deltas.items()),
        default=Value(0),
        output_field=IntegerField(),
    )
    StockLevel.objects.filter(pk__in=list(deltas)).update(
        quantity=F("quantity") + change, updated_at=timezone.now()
    )
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
        with transaction.atomic():
            return StockMovement.objects.bulk_create(rows)
    except IntegrityError:
        keys = ", ".join(repr(posting.key) for posting in postings)
        raise Conflict(
            f"The stock change {keys} was already made.", code="duplicate_stock_movement"
        ) from None
