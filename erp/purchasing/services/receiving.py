"""Receiving goods of a sent order: a goods-received note, the stock posted at cost through
store.inventory.services.stock_receive (the order's row locked first, then products, then
levels), and the receipt announced to accounting after the commit.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from erp.core import signals as core_signals
from erp.purchasing.choices import RECEIVABLE, OrderStatus
from erp.purchasing.models import GoodsReceivedLine, GoodsReceivedNote, PurchaseOrderLine
from erp.purchasing.services._shared import COST, _order_for_update, _warehouse
from store.common.accounts import logged_in
from store.common.errors import invalid_params, rule_broken
from store.common.money import money
from store.inventory import services as inventory

REFERENCE_TYPE = "purchase_order"


@transaction.atomic
def purchase_order_receive(
    *,
    order_id: int,
    lines: list[dict] | None = None,
    warehouse_id: int | None = None,
    supplier_reference: str = "",
    note: str = "",
    user=None,
) -> GoodsReceivedNote:
    """Receive goods of a sent order: `lines` [{line_id, quantity}] (None: everything still
    outstanding) into a warehouse (default: the order's, else the default warehouse). Writes
    a goods-received note with its lines and posts the stock at each line's unit cost in the
    store's currency (unit cost x the order's exchange rate); the order becomes partially
    received or received. More than a line's outstanding quantity is refused (409
    `over_receipt`); nothing changes then."""
    order = _order_for_update(order_id)
    if order.status not in RECEIVABLE:
        hint = " Send it first." if order.status == OrderStatus.DRAFT else ""
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}; goods are received on a sent "
            f"order.{hint}",
            code="purchase_order_not_receivable",
            status=409,
        )
    order_lines = {line.pk: line for line in order.lines.select_for_update().order_by("pk")}
    if lines is None:
        wanted = {pk: line.quantity_outstanding for pk, line in order_lines.items()}
        wanted = {pk: qty for pk, qty in wanted.items() if qty > 0}
    else:
        wanted: dict[int, int] = defaultdict(int)
        problems = {}
        for index, line in enumerate(lines):
            if line["line_id"] not in order_lines:
                problems[f"lines.{index}.line_id"] = [
                    f"Purchase order {order.number} has no line {line['line_id']}."
                ]
            wanted[line["line_id"]] += line["quantity"]
        if problems:
            raise invalid_params(problems)
    if not wanted:
        raise invalid_params({"lines": ["Nothing to receive."]})
    over = {pk: qty for pk, qty in wanted.items() if qty > order_lines[pk].quantity_outstanding}
    if over:
        parts = "; ".join(
            f"{order_lines[pk].sku or order_lines[pk].name}: {qty} received, "
            f"{order_lines[pk].quantity_outstanding} outstanding"
            for pk, qty in over.items()
        )
        raise rule_broken(f"More than was ordered: {parts}.", code="over_receipt", status=409)
    gone = [pk for pk in wanted if order_lines[pk].product_id is None]
    if gone:
        raise rule_broken(
            f"The product of line(s) {', '.join(map(str, gone))} was deleted; it cannot be "
            "received into stock.",
            code="product_deleted",
            status=409,
        )
    if warehouse_id is not None:
        warehouse = _warehouse(warehouse_id)
    else:
        warehouse = order.warehouse or inventory.default_warehouse()
    note_row = GoodsReceivedNote.objects.create(
        purchase_order=order,
        supplier_id=order.supplier_id,
        warehouse=warehouse,
        supplier_reference=supplier_reference,
        note=note,
        received_by=logged_in(user),
    )
    note_row.number = f"GRN{note_row.pk:05d}"
    GoodsReceivedNote.objects.filter(pk=note_row.pk).update(number=note_row.number)
    ordered = sorted(wanted)
    stock_costs = {
        pk: (order_lines[pk].unit_cost * order.exchange_rate).quantize(COST, rounding=ROUND_HALF_UP)
        for pk in ordered
    }
    movements = inventory.stock_receive(
        receipts=[
            inventory.Receipt(
                product_id=order_lines[pk].product_id,
                variant_id=order_lines[pk].variant_id,
                quantity=wanted[pk],
                unit_cost=stock_costs[pk],
                line=pk,
            )
            for pk in ordered
        ],
        warehouse_id=warehouse.pk,
        reference=inventory.Reference(
            type=REFERENCE_TYPE, id=str(order.pk), actor=user, note=f"{note_row.number}"
        ),
        key_prefix=f"grn:{note_row.pk}",
    )
    GoodsReceivedLine.objects.bulk_create(
        GoodsReceivedLine(
            note=note_row,
            order_line=order_lines[pk],
            product_id=order_lines[pk].product_id,
            variant_id=order_lines[pk].variant_id,
            sku=order_lines[pk].sku,
            quantity=wanted[pk],
            unit_cost=order_lines[pk].unit_cost,
            stock_unit_cost=stock_costs[pk],
            movement=movement,
        )
        for pk, movement in zip(ordered, movements, strict=True)
    )
    for pk in ordered:
        PurchaseOrderLine.objects.filter(pk=pk).update(
            quantity_received=F("quantity_received") + wanted[pk]
        )
    core_signals.send_after_commit(
        core_signals.goods_received,
        sender=GoodsReceivedNote,
        event={
            "note_id": note_row.pk,
            "number": note_row.number,
            "date": timezone.localdate(note_row.received_at).isoformat(),
            "purchase_order_id": order.pk,
            "purchase_order_number": order.number,
            "supplier_id": order.supplier_id,
            "supplier_name": order.supplier.name,
            "payment_terms_days": order.supplier.payment_terms_days,
            "amount": str(money(sum((wanted[pk] * stock_costs[pk] for pk in ordered), Decimal(0)))),
        },
    )
    left = sum(line.quantity_outstanding for line in order_lines.values()) - sum(wanted.values())
    order.status = OrderStatus.RECEIVED if left == 0 else OrderStatus.PARTIALLY_RECEIVED
    if left == 0:
        order.received_at = timezone.now()
    order.save(update_fields=["status", "received_at", "updated_at"])
    return note_row
