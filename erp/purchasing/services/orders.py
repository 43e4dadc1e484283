"""Purchase order drafts: created for an active supplier (its prices filling missing unit
costs), changed and deleted while draft.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.db import transaction

from erp.purchasing import selectors
from erp.purchasing.choices import OrderStatus
from erp.purchasing.models import PurchaseOrder, PurchaseOrderLine, Supplier
from erp.purchasing.services._shared import (
    COST,
    _item,
    _order_for_update,
    _warehouse,
    store_currency,
)
from store.catalog.models import Product, Variant
from store.common.accounts import logged_in
from store.common.errors import invalid_params, rule_broken
from store.common.money import money

MAX_LINES = 200

ORDER_FIELDS = ("expected_date", "order_date", "supplier_reference", "notes")


def _must_be_draft(order: PurchaseOrder, action: str) -> None:
    if order.status != OrderStatus.DRAFT:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}: only a draft can be {action}.",
            code="purchase_order_not_draft",
            status=409,
        )


def _lines(order: PurchaseOrder, lines: list[dict]) -> list[PurchaseOrderLine]:
    """Order lines from a body's [{product_id, variant_id?, quantity, unit_cost?}]: a missing
    unit cost is the supplier's price for that quantity in the order's currency (400
    `no_supplier_price` when it has none)."""
    if len(lines) > MAX_LINES:
        raise invalid_params({"lines": [f"At most {MAX_LINES} lines."]})
    out = []
    missing = {}
    for index, line in enumerate(lines):
        param = f"lines.{index}."
        product, variant = _item(line["product_id"], line.get("variant_id"), param)
        price = selectors.best_price(
            supplier_id=order.supplier_id,
            product_id=product.pk,
            variant_id=variant.pk if variant else None,
            quantity=line["quantity"],
            currency=order.currency,
        )
        unit_cost = line.get("unit_cost")
        if unit_cost is None:
            if price is None:
                missing[f"{param}unit_cost"] = [
                    f"{order.supplier.name} has no {order.currency} price for this item "
                    f"from {line['quantity']} units: give unit_cost."
                ]
                continue
            unit_cost = price.unit_price
        out.append(
            PurchaseOrderLine(
                order=order,
                product=product,
                variant=variant,
                sku=((variant.sku if variant else "") or product.sku or "")[:64],
                name=_item_name(product, variant)[:255],
                supplier_sku=price.supplier_sku if price else "",
                quantity=line["quantity"],
                unit_cost=Decimal(unit_cost).quantize(COST, rounding=ROUND_HALF_UP),
                position=index,
            )
        )
    if missing:
        raise invalid_params(missing, code="no_supplier_price")
    return out


def _item_name(product: Product, variant: Variant | None) -> str:
    if variant is None:
        return product.title
    label = getattr(variant, "title", "") or variant.sku or f"variant {variant.pk}"
    return f"{product.title} - {label}"


def _total(lines) -> Decimal:
    return money(sum((line.quantity * line.unit_cost for line in lines), Decimal(0)))


def _lines_replace(order: PurchaseOrder, lines: list[PurchaseOrderLine]) -> None:
    order.lines.all().delete()
    PurchaseOrderLine.objects.bulk_create(lines)
    order.total = _total(lines)


def _currency_and_rate(order: PurchaseOrder, fields: dict) -> None:
    if fields.get("currency"):
        order.currency = fields["currency"].upper()
    if "exchange_rate" in fields and fields["exchange_rate"] is not None:
        order.exchange_rate = fields["exchange_rate"]
    elif "currency" in fields:
        order.exchange_rate = Decimal(1)
    if order.currency == store_currency() and order.exchange_rate != 1:
        raise invalid_params(
            {"exchange_rate": [f"The order is in the store's currency ({order.currency}): 1."]}
        )


@transaction.atomic
def purchase_order_create(*, fields: dict, user=None, origin: str = "") -> PurchaseOrder:
    """A draft for an active supplier, in its currency unless `currency` says otherwise;
    `expected_date` defaults to the order date plus the supplier's lead time."""
    supplier = Supplier.objects.filter(pk=fields["supplier_id"]).first()
    if supplier is None:
        raise invalid_params({"supplier_id": [f"No supplier with id {fields['supplier_id']}."]})
    if not supplier.is_active:
        raise rule_broken(
            f"Supplier {supplier.name!r} is inactive; activate it to order from it.",
            code="supplier_inactive",
            status=409,
        )
    order = PurchaseOrder(
        supplier=supplier,
        currency=supplier.currency,
        warehouse=_warehouse(fields.get("warehouse_id")),
        created_by=logged_in(user),
        origin=origin,
    )
    for name in ORDER_FIELDS:
        if fields.get(name) is not None:
            setattr(order, name, fields[name])
    _currency_and_rate(order, fields)
    if order.expected_date is None:
        order.expected_date = order.order_date + timedelta(days=supplier.lead_time_days)
    lines = _lines(order, fields.get("lines") or [])
    order.total = _total(lines)
    order.save()
    order.number = f"PO{order.pk:05d}"
    PurchaseOrder.objects.filter(pk=order.pk).update(number=order.number)
    PurchaseOrderLine.objects.bulk_create(lines)
    return order


@transaction.atomic
def purchase_order_update(*, order_id: int, fields: dict) -> PurchaseOrder:
    """Change a draft; `lines`, when given, replaces all its lines."""
    order = _order_for_update(order_id)
    _must_be_draft(order, "changed")
    if fields.get("supplier_id") and fields["supplier_id"] != order.supplier_id:
        supplier = Supplier.objects.filter(pk=fields["supplier_id"], is_active=True).first()
        if supplier is None:
            raise invalid_params(
                {"supplier_id": [f"No active supplier with id {fields['supplier_id']}."]}
            )
        order.supplier = supplier
    if "warehouse_id" in fields:
        order.warehouse = _warehouse(fields["warehouse_id"])
    for name in ORDER_FIELDS:
        if name in fields and (fields[name] is not None or name == "expected_date"):
            setattr(order, name, fields[name])
    _currency_and_rate(order, fields)
    if "lines" in fields:
        _lines_replace(order, _lines(order, fields["lines"] or []))
    order.save()
    return order


@transaction.atomic
def purchase_order_delete(*, order_id: int) -> None:
    order = _order_for_update(order_id)
    _must_be_draft(order, "deleted (cancel it instead)")
    order.delete()
