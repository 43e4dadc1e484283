"""Stock held by orders (or anything else with lines): units taken from the active
warehouses (the default one first) atomically with the check, and given back to the levels
they were taken from.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Sum

from common.compiled import CompiledQuery
from common.errors import Conflict
from store.inventory.models import StockLevel, StockMovement
from store.inventory.services._ledger import (
    Reference,
    _level,
    _lock_products,
    _lock_stock,
    _post_many,
    _Posting,
    _skus,
)
from store.inventory.services.refresh import stock_fields_refresh
from store.inventory.services.warehouses import default_warehouse


def stock_lock(*, product_ids: Iterable[int]) -> list[int]:
    """Lock the products (pk order) before several stock changes in one transaction.

    A caller about to give back one set of items and take another (a checkout's hold turning
    into an order) locks the union first, so its locks follow the global pk order too.
    """
    return _lock_products(product_ids)


@dataclass(frozen=True)
class Need:
    """Units one line of a reference needs from an item's stock."""

    line: int | None
    product_id: int
    variant_id: int | None
    quantity: int
    allow_backorders: bool = False
    label: str = ""
    sku: str = ""


@dataclass(frozen=True)
class Shortage:
    need: Need
    available: int


class InsufficientStock(Conflict):
    """409 `insufficient_stock`: some items do not have the units asked for."""

    def __init__(self, shortages: list[Shortage], *, param=None) -> None:
        self.shortages = shortages
        parts = [
            f"{s.need.label or s.need.sku or f'product {s.need.product_id}'}: "
            f"{s.available} available, {s.need.quantity} wanted"
            for s in shortages
        ]
        errors = None
        if param is not None:
            errors = {
                param(s.need): [
                    f"Only {max(s.available, 0)} in stock." if s.available > 0 else "Out of stock."
                ]
                for s in shortages
            }
        super().__init__(
            "Not enough stock: " + "; ".join(parts) + ".",
            code="insufficient_stock",
            errors=errors,
        )


def _selling_order(level: StockLevel) -> tuple:
    """Orders take from the default warehouse first, then by priority, then by id."""
    return (not level.warehouse.is_default, level.warehouse.priority, level.warehouse_id)


def stock_take(
    *,
    needs: list[Need],
    reason: str,
    reference: Reference,
    key_prefix: str,
    param=None,
    savepoint: bool = True,
) -> list[StockMovement]:
    """Take units for each need from active warehouses, atomically with the check.

    Takes from the default warehouse first, then the others by priority. When an item has
    fewer units for sale than its needs together ask for, nothing is taken and
    InsufficientStock names every short item — unless the item allows backorders: then the
    default warehouse's level goes below zero for the rest. `param(need)` names the request
    parameter of a need in the refusal.

    Inside a caller's transaction it runs in a savepoint, so a caller may catch the refusal
    and go on (a checkout holding what it can). `savepoint=False` is for a caller whose whole
    transaction fails with the refusal anyway (an order's status move): it saves the
    savepoints' round trips, which are taken while the products are locked.
    """
    needs = [need for need in needs if need.quantity > 0]
    if not needs:
        return []
    with transaction.atomic(savepoint=savepoint):
        return _take(
            needs,
            reason=reason,
            reference=reference,
            key_prefix=key_prefix,
            param=param,
            savepoint=savepoint,
        )


def _take(
    needs: list[Need],
    *,
    reason: str,
    reference: Reference,
    key_prefix: str,
    param: Callable[[Need], str] | None,
    savepoint: bool,
) -> list[StockMovement]:
    pairs = {(need.product_id, need.variant_id) for need in needs}
    locked = _lock_stock((need.product_id for need in needs), pairs=pairs)
    levels = [lv for lv in locked if lv.warehouse.is_active]
    by_item: dict[tuple[int, int | None], list[StockLevel]] = defaultdict(list)
    for level in levels:
        by_item[(level.product_id, level.variant_id)].append(level)
    for item_levels in by_item.values():
        item_levels.sort(key=_selling_order)
    wanted: dict[tuple[int, int | None], int] = defaultdict(int)
    for need in needs:
        wanted[(need.product_id, need.variant_id)] += need.quantity
    shortages = []
    for need in needs:
        item = (need.product_id, need.variant_id)
        available = sum(max(lv.quantity, 0) for lv in by_item[item])
        if wanted[item] > available and not need.allow_backorders:
            # Two lines of one item are checked together; name each of them.
            shortages.append(Shortage(need, available))
    if shortages:
        raise InsufficientStock(shortages, param=param)
    warehouse = None
    postings = []
    for need in needs:
        item = (need.product_id, need.variant_id)
        remaining = need.quantity
        for level in by_item[item]:
            if remaining == 0:
                break
            # what the postings before this one left on the level
            left = level.quantity + sum(p.delta for p in postings if p.level is level)
            take = min(remaining, max(left, 0))
            if take:
                postings.append(
                    _Posting(
                        level, -take, f"{key_prefix}:{need.line}:{level.pk}", need.line, need.sku
                    )
                )
                remaining -= take
        if remaining:  # a backorder: the default warehouse goes below zero
            warehouse = warehouse or default_warehouse()
            level = next((lv for lv in by_item[item] if lv.warehouse_id == warehouse.pk), None)
            if level is None:
                level = _level(warehouse, need.product_id, need.variant_id)
                by_item[item].append(level)
            postings.append(
                _Posting(
                    level, -remaining, f"{key_prefix}:{need.line}:{level.pk}:b", need.line, need.sku
                )
            )
    movements = _post_many(postings, reason=reason, reference=reference, savepoint=savepoint)
    stock_fields_refresh(product_ids={need.product_id for need in needs})
    return movements


@dataclass(frozen=True)
class Held:
    """What a reference holds: `lines` {line: {level id: units}} (levels that still exist,
    units > 0) and `products` {level id: its product's id}, read in one statement."""

    lines: dict[int | None, dict[int, int]]
    products: dict[int, int | None]


# Read by every release and by reopenings: compiled once per connection (common.compiled).
_HOLDINGS = CompiledQuery(
    lambda reference_type, reference_id: (
        StockMovement.objects.filter(
            reference_type=reference_type, reference_id=reference_id, level__isnull=False
        )
        .values("reference_line", "level_id", "product_id")
        .annotate(total=Sum("quantity"))
        .order_by()
        .values_list("reference_line", "level_id", "product_id", "total")
    ),
    ("sample-type", "sample-id"),
    ("other-type", "other-id"),
)


def holdings(*, reference_type: str, reference_id: int | str) -> Held:
    """What a reference holds (Held). The product of a level is the one its movements name (a
    level's product never changes), so giving the units back needs no read to find which
    products to lock."""
    lines: dict[int | None, dict[int, int]] = defaultdict(dict)
    units: dict[tuple[int | None, int], int] = defaultdict(int)
    products: dict[int, int | None] = {}
    for line, level_id, product_id, total in _HOLDINGS.rows(reference_type, str(reference_id)):
        units[(line, level_id)] += total
        if product_id is not None:
            products[level_id] = product_id
    for (line, level_id), total in units.items():
        if total < 0:
            lines[line][level_id] = -total
    return Held(lines=dict(lines), products=products)


def held_by(*, reference_type: str, reference_id) -> dict[int | None, dict[int, int]]:
    """What a reference holds: {line: {level id: units}} (levels that still exist, units > 0)."""
    return holdings(reference_type=reference_type, reference_id=reference_id).lines


def stock_release(
    *,
    reference: Reference,
    keep: dict[int | None, int],
    reason: str,
    key_prefix: str,
    held: Held | None = None,
    savepoint: bool = True,
) -> list[StockMovement]:
    """Give back what a reference holds beyond `keep` ({line: units to keep}; others keep 0).

    Units go back to the levels they were taken from, the last taken first. The caller holds
    whatever lock serialises changes of this reference's holdings (an order's row); `held` is
    what `holdings` answered under that lock, when the caller read it already. `savepoint`: as
    for stock_take.
    """
    with transaction.atomic(savepoint=savepoint):
        if held is None:
            held = holdings(reference_type=reference.type, reference_id=reference.id)
        return _release(
            held,
            keep,
            reason=reason,
            reference=reference,
            key_prefix=key_prefix,
            savepoint=savepoint,
        )


def _release(
    holding: Held,
    keep: dict[int | None, int],
    *,
    reason: str,
    reference: Reference,
    key_prefix: str,
    savepoint: bool,
) -> list[StockMovement]:
    held = holding.lines
    excess = {
        line: sum(levels.values()) - keep.get(line, 0)
        for line, levels in held.items()
        if sum(levels.values()) > keep.get(line, 0)
    }
    if not excess:
        return []
    level_ids = {level_id for line in excess for level_id in held[line]}
    named = [holding.products.get(level_id) for level_id in level_ids]
    product_ids = {pk for pk in named if pk is not None}
    if None in named:  # a movement names no product: ask the levels
        product_ids = set(
            StockLevel.objects.filter(pk__in=level_ids).values_list("product_id", flat=True)
        )
    locked = _lock_stock(product_ids, level_ids=level_ids, with_skus=True)
    levels = {lv.pk: lv for lv in locked}
    skus = _skus(locked, {lv.product_id: lv.product_sku for lv in locked})  # type: ignore[attr-defined]
    postings = []
    for line, units in sorted(excess.items(), key=lambda item: (item[0] is None, item[0] or 0)):
        order = sorted(
            (levels[level_id] for level_id in held[line] if level_id in levels),
            key=_selling_order,
            reverse=True,
        )
        for level in order:
            if units == 0:
                break
            back = min(units, held[line][level.pk])
            postings.append(
                _Posting(
                    level, back, f"{key_prefix}:{line}:{level.pk}", line, skus.get(level.pk, "")
                )
            )
            units -= back
    movements = _post_many(postings, reason=reason, reference=reference, savepoint=savepoint)
    stock_fields_refresh(product_ids=product_ids)
    return movements
