"""The stock an order holds, through the inventory ledger (spec: States).

An order in a status that holds stock (any but cancelled, refunded, failed) holds, for each
line whose product or variant tracks inventory, the line's quantity less the units restocked
(services.restock); in a terminal status it holds nothing. What it holds is read from the
ledger (its movements, per line and level).

- Taking is synchronous and atomic with the check (`take_stock`): creating an order, adding or
  raising a line, and leaving a terminal status lock the products and levels concerned and
  refuse (409 `insufficient_stock`) rather than oversell, unless the item allows backorders.
- Giving back runs in a Celery task sent through the outbox on commit (`schedule_release` ->
  the `store_orders.release_stock` task -> `order_stock_release`): it locks the order,
  compares what the order holds with what it should hold now, and returns the difference. A
  second run, or a second worker on the same order, finds nothing to return, so stock moves
  once. The outbox row publishes it once the broker is reachable; a database flag
  (`stock_release_pending`) also keeps the intent, and beat re-enqueues orders whose release
  never ran (e.g. a message the broker lost).
- Deleting an order returns its stock in the deleting transaction, before the order goes.

Every movement's idempotency key is `order:<id>:<revision>:<line>:<level>`; the revision
counts the order's stock changes under its lock, so no change can be posted twice.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from common import outbox
from common.compiled import CompiledQuery
from store.inventory import services as inventory
from store.inventory.choices import MovementReason
from store.inventory.services.holds import Held
from store.inventory.services.holds import holdings as ledger_holdings
from store.orders.choices import OrderStatus, holds_stock
from store.orders.models import Order, OrderItem

REFERENCE_TYPE = "order"
RELEASE_TASK = "store_orders.release_stock"

RELEASE_REASONS = {
    OrderStatus.CANCELLED: MovementReason.ORDER_CANCELLED,
    OrderStatus.REFUNDED: MovementReason.ORDER_REFUNDED,
    OrderStatus.FAILED: MovementReason.ORDER_FAILED,
}


def _reference(order: Order, actor: Any = None) -> inventory.Reference:
    return inventory.Reference(
        type=REFERENCE_TYPE,
        id=str(order.pk),
        actor=actor,
        note=f"Order {order.order_number or order.pk}",
    )


def _tracking(item: OrderItem) -> tuple[bool, bool]:
    """(tracked, backorders allowed) of the line's product or variant now."""
    stock = item.variant if item.variant_id else item.product
    if stock is None:
        return False, False
    return stock.track_inventory, stock.allow_backorders


def holdings(order: Order) -> Held:
    """What the order holds, per line and level (store.inventory's Held)."""
    return ledger_holdings(reference_type=REFERENCE_TYPE, reference_id=order.pk)


def units_by_line(holding: Held) -> dict[int | None, int]:
    return {line: sum(levels.values()) for line, levels in holding.lines.items()}


def held(order: Order) -> dict[int | None, int]:
    """Units the order holds per line."""
    return units_by_line(holdings(order))


def wanted(
    order: Order, items: list[OrderItem], holding: dict[int | None, int]
) -> dict[int | None, int]:
    """Units each line should hold now: its quantity less what was restocked of it, while
    the order holds stock (a line whose item stopped tracking inventory keeps what it has but
    takes no more)."""
    if not holds_stock(order.status):
        return {}
    out = {}
    for item in items:
        tracked, _backorders = _tracking(item)
        units = holdable(item)
        out[item.pk] = units if tracked else min(holding.get(item.pk, 0), units)
    return out


def holdable(item: OrderItem) -> int:
    """The units a line holds while its order holds stock: those not given back."""
    return max(item.quantity - item.restocked, 0)


def revise(order: Order) -> list[str]:
    """Count one more stock change of the locked order (in memory); answers the field to save.
    A caller saving the order anyway (a status move) saves it with its own fields, so the
    change's idempotency keys cost no UPDATE of their own."""
    order.stock_revision += 1
    return ["stock_revision"]


def _key_prefix(order: Order) -> str:
    return f"{REFERENCE_TYPE}:{order.pk}:{order.stock_revision}"


def _next_revision(order: Order) -> str:
    revise(order)
    Order.objects.filter(pk=order.pk).update(stock_revision=order.stock_revision)
    return _key_prefix(order)


def holds_nothing(order: Order, old_status: str) -> bool:
    """Whether an order leaving `old_status` is known to hold nothing without reading the
    ledger: it was in a status that holds no stock and its release is not pending (the worker
    gave everything back, or it never held any)."""
    return not holds_stock(old_status) and not order.stock_release_pending


def take_stock(
    order: Order,
    *,
    reason: str,
    actor: Any = None,
    param: Callable[[int], str] | None = None,
    only: int | None = None,
    items: list[OrderItem] | None = None,
    holding: dict[int | None, int] | None = None,
    revised: bool = False,
) -> int:
    """Take what the order's lines (or the line `only`) need beyond what they hold (the order
    is locked).

    Refuses with InsufficientStock (nothing taken) when an item has too few units for sale; the
    refusal fails the caller's transaction (no savepoint: the order services let it
    propagate). `param(item_id)` names the request parameter of a line in that refusal.
    A caller that has them passes `items` (with product and variant), `holding` (held(), or {}
    when it knows the order holds nothing: holds_nothing) and `revised` (it counted and saved
    the stock revision already: revise), each sparing a statement.
    """
    if not holds_stock(order.status):
        return 0
    if items is None:
        lines = order.items.select_related("product", "variant")
        items = list(lines.filter(pk=only) if only is not None else lines)
    if holding is None:
        holding = held(order) if order.stock_revision else {}
    needs = []
    for item in items:
        tracked, backorders = _tracking(item)
        missing = holdable(item) - holding.get(item.pk, 0)
        if tracked and missing > 0:
            needs.append(
                inventory.Need(
                    line=item.pk,
                    product_id=item.product_id,
                    variant_id=item.variant_id,
                    quantity=missing,
                    allow_backorders=backorders,
                    label=item.title,
                    sku=item.sku,
                )
            )
    if not needs:
        return 0
    movements = inventory.stock_take(
        needs=needs,
        reason=reason,
        reference=_reference(order, actor),
        key_prefix=_key_prefix(order) if revised else _next_revision(order),
        param=(lambda need: param(need.line)) if param else None,
        savepoint=False,
    )
    return len(movements)


def release_stock(order: Order, *, reason: str, actor: Any = None, everything: bool = False) -> int:
    """Give back what the order holds beyond what it should (the order is locked). The new
    revision and the cleared release flag are written in one UPDATE; the lines are read only
    when the order still holds stock (what it keeps depends on them)."""
    holding = holdings(order)
    units = units_by_line(holding)
    keep = {}
    if not everything and holds_stock(order.status):
        keep = wanted(order, list(order.items.select_related("product", "variant")), units)
    excess = any(count > keep.get(line, 0) for line, count in units.items())
    count = 0
    changed: dict[str, object] = {}
    if excess:
        revise(order)
        changed["stock_revision"] = order.stock_revision
        count = len(
            inventory.stock_release(
                reference=_reference(order, actor),
                keep=keep,
                reason=reason,
                key_prefix=_key_prefix(order),
                held=holding,
                savepoint=False,
            )
        )
    if order.stock_release_pending:
        changed["stock_release_pending"] = False
        order.stock_release_pending = False
    if changed:
        Order.objects.filter(pk=order.pk).update(**changed)
    return count


def _enqueue_release(order_id: int, *, fresh: bool = False) -> None:
    """The release task once this commits; `fresh`: no release of the order is pending
    (outbox.enqueue: no waiting row to look up and join)."""
    outbox.enqueue(
        RELEASE_TASK, args=(order_id,), dedupe_key=f"{RELEASE_TASK}:{order_id}", fresh=fresh
    )


def flag_release(order: Order) -> list[str]:
    """Mark the order (in memory) as owing stock back; answers the fields to save for it (none
    when it was marked already). A caller about to save the order saves them with it."""
    if order.stock_release_pending:
        return []
    order.stock_release_pending = True
    return ["stock_release_pending"]


def schedule_release(order: Order, *, fresh: bool = False) -> None:
    """Record that the order owes stock back and enqueue the worker once this commits (the
    flag is written here unless the caller saved it already: flag_release).

    `fresh`: the caller raised the flag itself in this transaction. A flag that was down on
    the locked order means no release was pending, so there is no waiting task to join: the
    task is sent straight at commit. (A release is idempotent: a second one gives nothing
    more back.)"""
    if flag_release(order):
        Order.objects.filter(pk=order.pk).update(stock_release_pending=True)
        fresh = True
    _enqueue_release(order.pk, fresh=fresh)


def release_reason(order: Order) -> str:
    return RELEASE_REASONS.get(order.status, MovementReason.ORDER_EDITED)


# The worker's lock of the order it gives stock back for: compiled once per connection.
_RELEASE_LOCK = CompiledQuery(
    lambda order_id: Order.objects.select_for_update().filter(pk=order_id), (-1,), (-2,)
)


@transaction.atomic
def order_stock_release(*, order_id: int) -> int:
    """The worker's job: give back what the order no longer needs. A gone order is a no-op."""
    found = _RELEASE_LOCK.instances(order_id)
    if not found:
        return 0
    order = found[0]
    return release_stock(order, reason=release_reason(order))


def release_due(*, older_than: timedelta = timedelta(minutes=1)) -> int:
    """Beat: enqueue the orders whose release was recorded but has not run (a lost message)."""
    cutoff = timezone.now() - older_than
    ids = list(
        Order.objects.filter(stock_release_pending=True, updated_at__lt=cutoff).values_list(
            "pk", flat=True
        )[:500]
    )
    for order_id in ids:
        _enqueue_release(order_id)
    return len(ids)
