"""Purchasing's writes: suppliers, their prices, purchase orders and their life, receipts
into stock, and the auto-reorder.

Each public function is one transaction that validates first and changes nothing when it
refuses. A purchase order is locked (select_for_update) before anything about it is checked;
a receipt then locks products and levels through store.inventory.services.stock_receive, so
the order of locks is always: the order, products, levels.

E-mails leave through the outbox (common.outbox): `purchase_order_send` records the e-mail
(queued) and enqueues the `erp_purchasing.send_order_email` task, published after the commit;
a broker outage delays the e-mail, never the request. The task renders the PDF from the
database and sends once (a DoneMarker, written before sending).
"""

from __future__ import annotations

import logging
import smtplib
from collections import defaultdict
from datetime import timedelta
from decimal import ROUND_HALF_UP, Decimal

import stdnum
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from stdnum.exceptions import ValidationError as StdnumError

from common import outbox
from common.models import DoneMarker
from erp.core import signals as core_signals
from erp.purchasing import documents, selectors
from erp.purchasing.choices import (
    CANCELLABLE,
    RECEIVABLE,
    SENDABLE,
    EmailStatus,
    OrderStatus,
)
from erp.purchasing.models import (
    GoodsReceivedLine,
    GoodsReceivedNote,
    PurchaseOrder,
    PurchaseOrderEmail,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)
from store.catalog.choices import ProductType
from store.catalog.models import Product, Variant
from store.catalog.rules import base_slug, unique_value
from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.money import money
from store.inventory import services as inventory
from store.inventory.models import StockLevel, Warehouse
from store.settings import selectors as store_settings
from store.tax import vat_numbers

logger = logging.getLogger(__name__)

SEND_TASK = "erp_purchasing.send_order_email"
REFERENCE_TYPE = "purchase_order"
AUTO_REORDER = "auto-reorder"
COST = Decimal("0.0001")
MAX_LINES = 200


def store_currency() -> str:
    return str(store_settings.get_value("currency", "currency")).upper()


# --- Suppliers ----------------------------------------------------------------------------------

SUPPLIER_FIELDS = (
    "name",
    "code",
    "vat_number",
    "email",
    "phone",
    "contact_name",
    "website",
    "address_1",
    "address_2",
    "city",
    "postcode",
    "country",
    "currency",
    "payment_terms_days",
    "lead_time_days",
    "notes",
    "is_active",
)


def vat_number_clean(value: str, country: str = "") -> str:
    """A supplier's VAT number, compact, checked with python-stdnum: an EU number with its
    country prefix, or the national format of the supplier's country. ValueError otherwise."""
    text = (value or "").strip()
    if not text:
        return ""
    try:
        return vat_numbers.parse(text).number
    except ValueError as eu_problem:
        module = stdnum.get_cc_module(country.lower(), "vat") if country else None
        if module is None:
            raise ValueError(
                f"{eu_problem} Or give the supplier's country for its national format."
            ) from None
        try:
            return module.validate(text)
        except StdnumError as exc:
            raise ValueError(
                f"Not a valid VAT number of {country.upper()} ({exc.message.rstrip('.')})."
            ) from None


def _supplier_check(fields: dict, supplier: Supplier | None) -> dict:
    """The fields cleaned (VAT number compacted, code unique); 400 naming each problem."""
    problems: dict[str, list[str]] = {}
    cleaned = {name: fields[name] for name in SUPPLIER_FIELDS if name in fields}
    if supplier is None and not cleaned.get("name"):
        problems["name"] = ["A supplier needs a name."]
    if "name" in cleaned and not cleaned["name"].strip():
        problems["name"] = ["A supplier needs a name."]
    code = cleaned.get("code")
    if code:
        taken = Supplier.objects.filter(code=code)
        if supplier is not None:
            taken = taken.exclude(pk=supplier.pk)
        if taken.exists():
            problems["code"] = [f"Code {code!r} is already used."]
    if cleaned.get("vat_number") or ("country" in cleaned and supplier and supplier.vat_number):
        country = cleaned.get("country", supplier.country if supplier else "")
        number = cleaned.get("vat_number", supplier.vat_number if supplier else "")
        try:
            cleaned["vat_number"] = vat_number_clean(number, country or "")
        except ValueError as exc:
            problems["vat_number"] = [str(exc)]
    if cleaned.get("currency"):
        cleaned["currency"] = cleaned["currency"].upper()
    if problems:
        raise invalid_params(problems)
    return cleaned


def supplier_check(*, fields: dict, supplier_id: int | None = None) -> None:
    """What supplier_create/supplier_update would refuse (the admin's form check)."""
    supplier = Supplier.objects.filter(pk=supplier_id).first() if supplier_id else None
    _supplier_check(fields, supplier)


@transaction.atomic
def supplier_create(*, fields: dict) -> Supplier:
    cleaned = _supplier_check(fields, None)
    supplier = Supplier(**cleaned)
    if not supplier.currency:
        supplier.currency = store_currency()
    if not supplier.code:
        supplier.code = unique_value(
            base_slug(supplier.name, "supplier")[:60],
            lambda v: Supplier.objects.filter(code=v).exists(),
            limit=64,
        )
    supplier.save()
    return supplier


def _supplier_for_update(supplier_id: int) -> Supplier:
    supplier = Supplier.objects.select_for_update().filter(pk=supplier_id).first()
    if supplier is None:
        raise not_found("supplier", supplier_id)
    return supplier


@transaction.atomic
def supplier_update(*, supplier_id: int, fields: dict) -> Supplier:
    supplier = _supplier_for_update(supplier_id)
    cleaned = _supplier_check(fields, supplier)
    if cleaned.get("code") == "":
        cleaned.pop("code")
    if cleaned.get("currency") == "":
        cleaned.pop("currency")
    for name, value in cleaned.items():
        setattr(supplier, name, value)
    supplier.save()
    return supplier


@transaction.atomic
def supplier_delete(*, supplier_id: int) -> None:
    """Delete a supplier with no purchase orders (its prices go with it); one with orders is
    refused (409 supplier_in_use): deactivate it instead."""
    supplier = _supplier_for_update(supplier_id)
    if PurchaseOrder.objects.filter(supplier=supplier).exists():
        raise rule_broken(
            f"Supplier {supplier.name!r} has purchase orders; deactivate it instead "
            '(PATCH {"active": false}).',
            code="supplier_in_use",
            status=409,
        )
    supplier.delete()


# --- Items (a product, or one variant of it) ----------------------------------------------------


def _item(product_id: int, variant_id: int | None, param: str) -> tuple[Product, Variant | None]:
    """The product and variant a body names; 400 naming `param` when they do not fit."""
    product = Product.objects.filter(pk=product_id).first()
    if product is None:
        raise invalid_params({f"{param}product_id": [f"No product with id {product_id}."]})
    if variant_id is None:
        if product.type == ProductType.VARIABLE:
            raise invalid_params(
                {f"{param}variant_id": ["A variable product is bought by variant: give one."]}
            )
        return product, None
    variant = Variant.objects.filter(pk=variant_id, product_id=product.pk).first()
    if variant is None:
        raise invalid_params(
            {f"{param}variant_id": [f"Product {product_id} has no variant with id {variant_id}."]}
        )
    return product, variant


# --- Supplier prices ----------------------------------------------------------------------------

PRICE_FIELDS = ("supplier_sku", "unit_price", "currency", "min_quantity", "lead_time_days")


def _price_duplicate(price: SupplierPrice) -> bool:
    same = SupplierPrice.objects.filter(
        supplier_id=price.supplier_id,
        product_id=price.product_id,
        variant_id=price.variant_id,
        currency=price.currency,
        min_quantity=price.min_quantity,
    )
    if price.pk:
        same = same.exclude(pk=price.pk)
    return same.exists()


def _price_check(price: SupplierPrice) -> None:
    if _price_duplicate(price):
        raise invalid_params(
            {
                "min_quantity": [
                    f"This supplier already has a {price.currency} price for this item from "
                    f"{price.min_quantity} units; change that one."
                ]
            },
            code="duplicate_supplier_price",
        )


def _price_build(price: SupplierPrice, fields: dict) -> SupplierPrice:
    """`price` with `fields` set (the item only on a new one), checked."""
    if price.pk is None:
        product, variant = _item(fields["product_id"], fields.get("variant_id"), "")
        price.product, price.variant = product, variant
    for name in PRICE_FIELDS:
        if name in fields:
            setattr(price, name, fields[name])
    price.currency = (price.currency or price.supplier.currency).upper()
    _price_check(price)
    return price


def supplier_price_check(*, fields: dict, price_id: int | None = None) -> None:
    """What supplier_price_create/update would refuse (the admin's form check)."""
    if price_id is not None:
        price = SupplierPrice.objects.select_related("supplier").filter(pk=price_id).first()
        if price is None:
            raise not_found("supplier_price", price_id)
    else:
        supplier = Supplier.objects.filter(pk=fields.get("supplier_id")).first()
        if supplier is None:
            raise invalid_params({"supplier_id": ["Choose a supplier."]})
        price = SupplierPrice(supplier=supplier)
    _price_build(price, fields)


@transaction.atomic
def supplier_price_create(*, supplier_id: int, fields: dict) -> SupplierPrice:
    supplier = _supplier_for_update(supplier_id)
    price = _price_build(SupplierPrice(supplier=supplier), fields)
    price.save()
    return price


def _price_for_update(price_id: int) -> SupplierPrice:
    price = SupplierPrice.objects.select_for_update().filter(pk=price_id).first()
    if price is None:
        raise not_found("supplier_price", price_id)
    return price


@transaction.atomic
def supplier_price_update(*, price_id: int, fields: dict) -> SupplierPrice:
    price = _price_for_update(price_id)
    if "currency" in fields and not fields["currency"]:
        fields = {**fields, "currency": price.supplier.currency}
    price = _price_build(price, fields)
    price.save()
    return price


@transaction.atomic
def supplier_price_delete(*, price_id: int) -> None:
    _price_for_update(price_id).delete()


# --- Purchase orders: drafts --------------------------------------------------------------------

ORDER_FIELDS = ("expected_date", "order_date", "supplier_reference", "notes")


def _order_for_update(order_id: int) -> PurchaseOrder:
    order = (
        PurchaseOrder.objects.select_for_update(of=("self",))
        .select_related("supplier")
        .filter(pk=order_id)
        .first()
    )
    if order is None:
        raise not_found("purchase_order", order_id)
    return order


def _must_be_draft(order: PurchaseOrder, action: str) -> None:
    if order.status != OrderStatus.DRAFT:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}: only a draft can be {action}.",
            code="purchase_order_not_draft",
            status=409,
        )


def _warehouse(warehouse_id: int | None, param: str = "warehouse_id") -> Warehouse | None:
    if warehouse_id is None:
        return None
    warehouse = Warehouse.objects.filter(pk=warehouse_id).first()
    if warehouse is None:
        raise invalid_params({param: [f"No warehouse with id {warehouse_id}."]})
    return warehouse


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


# --- Purchase orders: send, cancel --------------------------------------------------------------


@transaction.atomic
def purchase_order_send(
    *, order_id: int, email: bool = True, message: str = "", user=None
) -> PurchaseOrder:
    """Send a draft (or send an order again): with `email` the PDF goes to the supplier's
    e-mail address (409 `supplier_has_no_email` without one), after the commit through the
    outbox; without it the order is only marked sent (ordered by phone, on the supplier's
    portal). A draft becomes sent, `sent_at` is now."""
    order = _order_for_update(order_id)
    if order.status not in SENDABLE:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}; it cannot be sent.",
            code="purchase_order_not_sendable",
            status=409,
        )
    if not order.lines.exists():
        raise rule_broken(
            f"Purchase order {order.number} has no lines.", code="purchase_order_empty", status=409
        )
    supplier = order.supplier
    if email and not supplier.email:
        raise rule_broken(
            f"Supplier {supplier.name!r} has no e-mail address; add one or send with "
            '{"email": false}.',
            code="supplier_has_no_email",
            status=409,
        )
    now = timezone.now()
    if order.status == OrderStatus.DRAFT:
        order.status = OrderStatus.SENT
    order.sent_at = now
    order.save(update_fields=["status", "sent_at", "updated_at"])
    if email:
        row = PurchaseOrderEmail.objects.create(
            order=order,
            recipient=supplier.email,
            subject=f"Purchase order {order.number} from {documents.store_name()}"[:255],
            message=message,
            sent_by=logged_in(user),
        )
        outbox.enqueue(SEND_TASK, kwargs={"email_id": row.pk})
    return order


TRANSIENT = (smtplib.SMTPException, OSError)


def purchase_order_email_deliver(*, email_id: int) -> bool:
    """The task's work: send one recorded e-mail with the order's PDF attached, once (a
    redelivered task finds the marker and sends nothing); answers whether it sent now. A
    failure marks the row failed and is raised again (the task retries transient ones)."""
    row = PurchaseOrderEmail.objects.filter(pk=email_id).first()
    if row is None or row.status == EmailStatus.SENT:
        return False
    marker = f"erp-po-email:{email_id}"
    try:
        with transaction.atomic():
            DoneMarker.objects.create(key=marker)
    except IntegrityError:
        logger.info("purchase order e-mail %s already sent; skipping redelivery", email_id)
        return False
    order = selectors.order_get(row.order_id)
    message = EmailMessage(
        subject=row.subject,
        body=documents.email_text(order, row.message),
        from_email=documents.sender(),
        to=[row.recipient],
    )
    message.attach(f"{order.number}.pdf", documents.order_pdf(order), "application/pdf")
    try:
        message.send()
    except Exception as exc:
        DoneMarker.objects.filter(key=marker).delete()
        PurchaseOrderEmail.objects.filter(pk=email_id).exclude(status=EmailStatus.SENT).update(
            status=EmailStatus.FAILED,
            error=f"{exc.__class__.__name__}: {exc}"[:500],
            attempts=F("attempts") + 1,
            failed_at=timezone.now(),
        )
        raise
    PurchaseOrderEmail.objects.filter(pk=email_id).update(
        status=EmailStatus.SENT, error="", attempts=F("attempts") + 1, sent_at=timezone.now()
    )
    return True


@transaction.atomic
def purchase_order_cancel(*, order_id: int) -> PurchaseOrder:
    """Cancel a draft or a sent order; once anything was received it cannot be (409)."""
    order = _order_for_update(order_id)
    if order.status not in CANCELLABLE:
        raise rule_broken(
            f"Purchase order {order.number} is {order.status}; only a draft or a sent order "
            "with nothing received can be cancelled.",
            code="purchase_order_not_cancellable",
            status=409,
        )
    order.status = OrderStatus.CANCELLED
    order.cancelled_at = timezone.now()
    order.save(update_fields=["status", "cancelled_at", "updated_at"])
    return order


# --- Receiving ----------------------------------------------------------------------------------


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


# --- Auto-reorder -------------------------------------------------------------------------------


def reorder_quantity(level: StockLevel) -> int:
    """What to order for a level at or below its reorder point: its reorder quantity, else
    up to twice the point (at least one)."""
    if level.reorder_quantity:
        return level.reorder_quantity
    return max(2 * (level.reorder_point or 0) - level.quantity, 1)


@transaction.atomic
def purchase_orders_auto_reorder(*, user=None) -> dict:
    """Draft purchase orders for every stock level (of an active warehouse) at or below its
    reorder point, from the cheapest price in the store's currency of an active supplier
    (selectors.cheapest_price: tiers the quantity reaches first; else the quantity is raised
    to the smallest minimum), one order per supplier and warehouse. Skipped, with their
    reason: items an open order already brings to that warehouse (`on_order`) and items
    without such a price (`no_supplier_price`). Running it again creates nothing new: what it
    ordered is then on order. The products are locked first (pk order), so two runs at once
    cannot both order the same item."""
    candidates = list(
        StockLevel.objects.filter(
            reorder_point__isnull=False,
            quantity__lte=F("reorder_point"),
            warehouse__is_active=True,
        ).values_list("product_id", flat=True)
    )
    inventory.stock_lock(product_ids=candidates)
    levels = list(
        StockLevel.objects.filter(
            reorder_point__isnull=False,
            quantity__lte=F("reorder_point"),
            warehouse__is_active=True,
        )
        .select_related("warehouse", "product", "variant")
        .order_by("warehouse_id", "product_id", "variant_id")
    )
    currency = store_currency()
    default = inventory.default_warehouse()
    on_order = selectors.outstanding_by_item(default_warehouse_id=default.pk)
    prices = selectors.prices_for_items(
        items={(lv.product_id, lv.variant_id) for lv in levels}, currency=currency
    )
    groups: dict[tuple[int, int], list[dict]] = defaultdict(list)
    skipped = []
    for level in levels:
        item = (level.product_id, level.variant_id)
        entry = {
            "product_id": level.product_id,
            "variant_id": level.variant_id,
            "warehouse_id": level.warehouse_id,
            "sku": (level.variant.sku if level.variant else level.product.sku) or "",
            "quantity": level.quantity,
            "reorder_point": level.reorder_point,
        }
        outstanding = on_order.get((level.warehouse_id, *item))
        if outstanding:
            skipped.append(
                {
                    **entry,
                    "reason": "on_order",
                    "message": f"{outstanding['quantity']} on order "
                    f"({', '.join(outstanding['numbers'])}).",
                }
            )
            continue
        need = reorder_quantity(level)
        choice = selectors.cheapest_price(prices.get(item, []), need)
        if choice is None:
            skipped.append(
                {
                    **entry,
                    "reason": "no_supplier_price",
                    "message": f"No active supplier has a {currency} price for this item.",
                }
            )
            continue
        price, quantity = choice
        groups[(price.supplier_id, level.warehouse_id)].append(
            {
                "product_id": level.product_id,
                "variant_id": level.variant_id,
                "quantity": quantity,
                "unit_cost": price.unit_price,
            }
        )
    created = []
    for (supplier_id, warehouse_id), lines in sorted(groups.items()):
        created.append(
            purchase_order_create(
                fields={
                    "supplier_id": supplier_id,
                    "currency": currency,
                    "warehouse_id": None if warehouse_id == default.pk else warehouse_id,
                    "lines": lines,
                },
                user=user,
                origin=AUTO_REORDER,
            )
        )
    return {"created": created, "skipped": skipped}
