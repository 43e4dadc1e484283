"""Giving back the stock of part of an order: a return, or a refund's restock of some lines.

Each line counts the units given back (`OrderItem.restocked`): while the order holds stock,
a line holds its quantity less those (services.stock.wanted), so the release below, the
worker's later releases and a reopening all agree on what the order holds. The movements are
the release's (store.inventory's `stock_release`, under the order's lock, keyed by the order's
stock revision); each restock is kept (`OrderRestock`) with the caller's idempotency key, and
written into the order's history.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from common.errors import Conflict
from store.common.accounts import logged_in
from store.common.errors import rule_broken
from store.common.problems import Problems
from store.inventory.choices import MovementReason
from store.orders.choices import HistoryField, OrderSource, holds_stock
from store.orders.models import Order, OrderItem, OrderRestock
from store.orders.services.common import order_for_update, record
from store.orders.services.stock import held, holdable, release_stock
from store.reports import rollups

#: At most this many lines in one restock (an order has at most 200).
MAX_LINES = 200


@dataclass(frozen=True)
class Restocked:
    order: Order
    lines: list[tuple[OrderItem, int]]  # (line, units given back now)
    replayed: bool = False  # the same key was restocked before: nothing changed now


def _replay(order: Order, key: str, items: list[dict]) -> Restocked | None:
    """The restock made with `key` before, answered again; 409 `restock_key_reused` when it
    gave back other units than these."""
    done = list(OrderRestock.objects.filter(order=order, key=key).select_related("order_item"))
    if not done:
        return None
    asked = {entry.get("item_id"): entry.get("quantity") for entry in items}
    if asked != {r.order_item_id: r.quantity for r in done}:
        raise Conflict(
            f"Restock {key!r} of this order gave back other units; use another key.",
            code="restock_key_reused",
        )
    return Restocked(order=order, lines=[(r.order_item, r.quantity) for r in done], replayed=True)


def _wanted(order: Order, items: list[dict], lines: dict[int, OrderItem]) -> dict[int, int]:
    """{item id: units} of the request, each entry checked (400 naming `items.<n>.*`)."""
    problems = Problems()
    if not items:
        problems.add("items", "Name at least one item of the order to restock.")
    if len(items) > MAX_LINES:
        problems.add("items", f"At most {MAX_LINES} items.")
    wanted: dict[int, int] = {}
    for index, entry in enumerate(items[:MAX_LINES]):
        item_id, quantity = entry.get("item_id"), entry.get("quantity")
        if item_id not in lines:
            problems.add(
                f"items.{index}.item_id",
                f"Order {order.order_number} has no item {item_id}.",
                code="order_item_not_found",
            )
        elif item_id in wanted:
            problems.add(f"items.{index}.item_id", "Named twice: one entry per item.")
        elif not isinstance(quantity, int) or quantity < 1:
            problems.add(f"items.{index}.quantity", "At least 1 unit.")
        else:
            wanted[item_id] = quantity
    problems.raise_if_any()
    return wanted


def restock_check(order: Order, items: list[dict]) -> dict[int, int]:
    """The checks of a restock of a locked order, changing nothing: answers {item id: units}.

    400 `order_item_not_found` naming `items.<n>.item_id` (not a line of this order);
    409 `order_stock_released` (the order is cancelled, refunded or failed: it holds no
    stock); 409 `restock_exceeds_held` naming `items.<n>.quantity` (more units than the line
    still holds: its quantity less what was restocked before, and only what the ledger shows
    it took: an item that does not track inventory holds none)."""
    lines = {item.pk: item for item in order.items.select_related("product", "variant")}
    wanted = _wanted(order, items, lines)
    if not holds_stock(order.status):
        raise rule_broken(
            f"Order {order.order_number} is {order.status}: its stock was given back already.",
            code="order_stock_released",
            status=409,
        )
    holding = held(order)
    over: dict[str, list[str]] = {}
    for index, entry in enumerate(items):
        item = lines[entry["item_id"]]
        left = min(holdable(item), holding.get(item.pk, 0))
        if wanted[item.pk] > left:
            before = f" ({item.restocked} restocked before)" if item.restocked else ""
            over[f"items.{index}.quantity"] = [
                f"Item {item.pk} ({item.title}) holds {left} unit(s) in stock{before}; "
                f"asked {wanted[item.pk]}."
            ]
    if over:
        raise Conflict(
            "More units than the order's lines hold: " + " ".join(m[0] for m in over.values()),
            code="restock_exceeds_held",
            errors=over,
        )
    return wanted


@transaction.atomic
@rollups.batched
def order_items_restock(
    *,
    order_id: int,
    items: list[dict],
    actor=None,
    note: str = "",
    key: str = "",
    source: str = OrderSource.API,
) -> Restocked:
    """Give back to stock `items` ([{item_id, quantity}]) of an order, now, in one
    transaction: the lines count the units restocked, the inventory ledger gets the
    movements (reason `order_refunded`), the history a `stock` entry.

    Refusals as `restock_check` (nothing changes). With `key` (e.g. the refund's), a restock
    already made with it answers again (`replayed`) without moving stock twice."""
    order = order_for_update(order_id)
    if key:
        again = _replay(order, key, items)
        if again is not None:
            return again
    wanted = restock_check(order, items)
    lines = {item.pk: item for item in OrderItem.objects.filter(pk__in=wanted)}
    done = []
    for item_id, units in wanted.items():
        item = lines[item_id]
        item.restocked += units
        item.save(update_fields=["restocked", "updated_at"])
        OrderRestock.objects.create(
            order=order,
            order_item=item,
            quantity=units,
            key=key,
            note=note[:255],
            actor=logged_in(actor),
        )
        done.append((item, units))
    release_stock(order, reason=MovementReason.ORDER_REFUNDED, actor=actor)
    what = ", ".join(f"{units} x {item.title} (item {item.pk})" for item, units in done)
    record(
        order,
        HistoryField.STOCK,
        "",
        "restocked",
        actor=actor,
        source=source,
        note=f"Restocked {what}" + (f": {note}" if note else "."),
    )
    return Restocked(order=order, lines=done)
