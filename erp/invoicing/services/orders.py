"""Invoices of orders: an order's lines as invoice lines, the one invoice of an order, and the
automatic invoice of a completed order (a task, when the settings ask for it).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal

from django.db import IntegrityError, transaction

from common import outbox
from common.errors import ServiceError
from erp.invoicing import selectors
from erp.invoicing.choices import (
    B2B_TYPES,
    EXEMPT_CATEGORY,
    ORDER_PAYMENT_METHODS,
    VAT_RATES,
    InvoiceStatus,
    PaymentMethod,
    VatCategory,
)
from erp.invoicing.models import Invoice
from erp.invoicing.services._shared import (
    CENT,
    NOT_DRAFT,
    SERIES_REQUIRED,
    _auto_refused,
    _conflict,
    _write_lines,
)
from erp.invoicing.services.issuing import invoice_issue
from store.common.accounts import logged_in
from store.common.addresses import Address
from store.common.money import allocate_cents, from_cents, money, to_cents
from store.orders import selectors as order_selectors

ORDER_TASK = "erp_invoicing.invoice_for_order"


def _category_of(net: Decimal, tax: Decimal) -> int:
    """The VAT category whose rate is nearest the order line's (tax over net)."""
    if net <= 0 or tax <= 0:
        return EXEMPT_CATEGORY
    rate = tax / net * 100
    taxed = [c for c in VatCategory if VAT_RATES[c.value] > 0 and c.value != 10]
    return min(taxed, key=lambda c: (abs(VAT_RATES[c.value] - rate), c.value)).value


def _order_line(
    description: str, sku: str, quantity: int, unit_price: Decimal, net: Decimal, tax: Decimal
) -> dict:
    """An order line as an invoice line: `net` is what the order charged without tax; the
    difference from quantity x unit price is the line's discount."""
    quantity = Decimal(quantity)
    unit_price = money(unit_price)
    if quantity * unit_price < net:  # priced with tax included: the unit price of the net
        unit_price = (net / quantity).quantize(CENT, rounding=ROUND_CEILING)
    return {
        "description": description[:255] or "Item",
        "sku": sku,
        "quantity": quantity,
        "unit_price": unit_price,
        "discount": money(quantity * unit_price - net),
        "vat_category": _category_of(net, tax),
    }


def order_lines(order) -> list[dict]:
    """The invoice lines of an order: its items (the order's discount shared over them in
    proportion, to the cent) and its shipping."""
    items = list(order.items.all())
    shares = (
        allocate_cents(
            min(to_cents(order.discount_total), sum(to_cents(i.subtotal) for i in items)),
            [to_cents(item.subtotal) for item in items],
        )
        if items
        else []
    )
    lines = [
        _order_line(
            item.title,
            item.sku,
            item.quantity,
            item.unit_price,
            item.subtotal - from_cents(share),
            item.tax,
        )
        for item, share in zip(items, shares, strict=True)
    ]
    if order.shipping_total > 0:
        title = order.shipping_method_title or order.shipping_method
        lines.append(
            _order_line(
                f"Shipping: {title}" if title else "Shipping",
                "",
                1,
                order.shipping_total,
                order.shipping_total,
                order.shipping_tax,
            )
        )
    return lines


def invoice_from_order(*, order_id: int, user=None) -> tuple[Invoice, bool]:
    """The order's invoice, made once (a draft in the settings' order series, else the default
    series): (invoice, made now). A second call answers the same invoice. 404
    `order_not_found`; 409 `invoice_series_required` without a series."""
    existing = selectors.invoice_of_order(order_id)
    if existing is not None:
        return existing, False
    order = order_selectors.order_get(order_id)  # 404 order_not_found
    row = selectors.settings_row()
    series = row.order_series or row.default_series
    if series is None:
        raise _conflict(
            "No series for invoices of orders: set order_series_id or default_series_id in "
            "PATCH /invoices/settings.",
            SERIES_REQUIRED,
        )
    address = Address.of(order.billing_address)
    lines = order_lines(order)
    for line in lines:
        if line["vat_category"] == EXEMPT_CATEGORY:
            line["vat_exemption"] = row.zero_vat_exemption
    try:
        with transaction.atomic():
            invoice = Invoice.objects.create(
                series=series,
                document_type=series.document_type,
                currency=order.currency,
                customer=order.customer,
                counterpart_name=address.company
                or " ".join(filter(None, (address.first_name, address.last_name))),
                # a retail receipt names no counterpart to the authority
                counterpart_vat_number=order.vat_number
                if series.document_type in B2B_TYPES
                else "",
                counterpart_country=address.country,
                billing_address=dict(order.billing_address),
                payment_method=ORDER_PAYMENT_METHODS.get(order.payment_method, PaymentMethod.POS),
                notes=f"Order {order.order_number}.",
                order=order,
                created_by=logged_in(user),
            )
            _write_lines(invoice, lines)
    except IntegrityError:  # another call made it meanwhile
        existing = selectors.invoice_of_order(order_id)
        if existing is None:
            raise
        return existing, False
    return invoice, True


def invoice_for_order(*, order_id: int) -> int | None:
    """The auto-invoice of a completed order (the task): made and issued once; answers its id
    (None when the settings no longer ask for it or no series is set). A draft that a rule
    refuses (issue_problems, `invoice_incomplete`) stays a draft without a number and records
    why in `auto_issue_error`; the order's status change is never failed by it."""
    row = selectors.settings_row()
    if not row.auto_invoice or not (row.order_series_id or row.default_series_id):
        return None
    invoice, _made = invoice_from_order(order_id=order_id)
    if invoice.status == InvoiceStatus.DRAFT:
        try:
            invoice_issue(invoice_id=invoice.pk)
        except ServiceError as exc:
            if exc.code == NOT_DRAFT:
                pass  # issued by a concurrent run
            elif exc.status_code == 409:  # a rule refused it: no number taken, a person fixes it
                _auto_refused(invoice.pk, f"Not issued automatically: {exc.detail}")
            else:
                raise
    return invoice.pk


def auto_invoice_requested(order) -> None:
    """The orders' status signal: a completed order gets its invoice by a task, when the
    settings ask for it (joined to the order's transaction by the outbox)."""
    if selectors.settings_row().auto_invoice:
        outbox.enqueue(
            ORDER_TASK,
            kwargs={"order_id": order.pk},
            dedupe_key=f"{ORDER_TASK}:{order.pk}",
        )
