"""Invoicing's writes: series, settings, drafts, issuing (gapless numbering), cancelling by
credit note, invoices made from orders, and the transmission to the tax authority.

Each write validates first and changes nothing when it refuses (400 naming the parameters;
409 for a rule of the document's state). Issuing locks the invoice, then its series row
(select_for_update), takes the series' next number and moves it on in the same transaction:
numbers are unique, in issue order and without gaps (a draft has none; a rolled-back issue
gives its number back).
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone

from common import outbox
from common.errors import ServiceError
from erp.core import signals as core_signals
from erp.invoicing import crypto, selectors
from erp.invoicing.choices import (
    CREDIT_TYPES,
    EXEMPT_CATEGORY,
    ORDER_PAYMENT_METHODS,
    VAT_RATES,
    DocumentType,
    InvoiceStatus,
    PaymentMethod,
    TransmissionStatus,
    VatCategory,
    credit_type_for,
)
from erp.invoicing.models import (
    Invoice,
    InvoiceLine,
    InvoiceSeries,
    InvoicingSettings,
    Transmission,
)
from erp.invoicing.providers.base import Cancelled, NotConfigured, Transient
from store.common.accounts import logged_in
from store.common.addresses import Address
from store.common.errors import invalid_params, rule_broken
from store.common.money import allocate_cents, from_cents, money, to_cents
from store.common.problems import Problems
from store.customers.models import Customer
from store.orders import selectors as order_selectors
from store.tax import selectors as tax_selectors

TRANSMIT_TASK = "erp_invoicing.transmit"
ORDER_TASK = "erp_invoicing.invoice_for_order"

NOT_DRAFT = "invoice_not_draft"
IS_DRAFT = "invoice_is_draft"
ALREADY_CANCELLED = "invoice_cancelled"
NOT_CANCELLABLE = "invoice_not_cancellable"
INCOMPLETE = "invoice_incomplete"
SERIES_REQUIRED = "invoice_series_required"
SERIES_IN_USE = "invoice_series_in_use"
IN_PROGRESS = "transmission_in_progress"
NOT_SENT = "transmission_not_sent"
NOT_CONFIGURED = "authority_not_configured"
UNAVAILABLE = "authority_unavailable"
REFUSED = "authority_refused"

CENT = Decimal("0.01")


def _conflict(message: str, code: str):
    return rule_broken(message, code=code, status=409)


# --- Amounts ------------------------------------------------------------------------------------


def line_amounts(
    *,
    quantity: Decimal,
    unit_price: Decimal,
    vat_category: int,
    discount: Decimal = Decimal(0),
) -> dict:
    """A line's net (quantity x unit price - discount, to the cent), VAT at its category's
    rate (half up) and gross."""
    net = money(Decimal(quantity) * Decimal(unit_price) - Decimal(discount))
    vat = (net * VAT_RATES[vat_category] / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return {"net_amount": net, "vat_amount": vat, "gross_amount": net + vat}


def _check_lines(lines: list[dict], problems: Problems) -> None:
    for index, line in enumerate(lines):
        where = f"lines.{index}"
        gross = Decimal(line["quantity"]) * Decimal(line["unit_price"])
        if Decimal(line.get("discount") or 0) > gross:
            problems.add(f"{where}.discount", "The discount exceeds quantity x unit price.")
        category = line["vat_category"]
        if line.get("vat_exemption") and category != EXEMPT_CATEGORY:
            problems.add(
                f"{where}.vat_exemption",
                f"Only 0% lines (VAT category {EXEMPT_CATEGORY}) take an exemption category.",
            )


def _write_lines(invoice: Invoice, lines: list[dict]) -> None:
    InvoiceLine.objects.filter(invoice=invoice).delete()
    rows = []
    for position, line in enumerate(lines, start=1):
        discount = money(line.get("discount") or 0)
        rows.append(
            InvoiceLine(
                invoice=invoice,
                position=position,
                description=line["description"],
                sku=line.get("sku") or "",
                quantity=line["quantity"],
                unit_price=money(line["unit_price"]),
                discount=discount,
                vat_category=line["vat_category"],
                vat_exemption=line.get("vat_exemption"),
                **line_amounts(
                    quantity=line["quantity"],
                    unit_price=line["unit_price"],
                    vat_category=line["vat_category"],
                    discount=discount,
                ),
            )
        )
    InvoiceLine.objects.bulk_create(rows)
    _total(invoice, rows)


def _total(invoice: Invoice, lines: list[InvoiceLine]) -> None:
    invoice.net_total = sum((line.net_amount for line in lines), Decimal(0))
    invoice.vat_total = sum((line.vat_amount for line in lines), Decimal(0))
    invoice.gross_total = invoice.net_total + invoice.vat_total
    Invoice.objects.filter(pk=invoice.pk).update(
        net_total=invoice.net_total, vat_total=invoice.vat_total, gross_total=invoice.gross_total
    )


# --- Series -------------------------------------------------------------------------------------


def _series_in_use(series_id: int) -> bool:
    return Invoice.objects.filter(series_id=series_id, number__isnull=False).exists()


def series_check(fields: dict, *, series: InvoiceSeries | None = None) -> None:
    """400 for a code another series has; 409 `invoice_series_in_use` for a change of code,
    document type or next number once the series has issued documents."""
    code = fields.get("code")
    if code is not None:
        taken = InvoiceSeries.objects.filter(code__iexact=code)
        if series is not None:
            taken = taken.exclude(pk=series.pk)
        if taken.exists():
            raise invalid_params({"code": [f"A series is already coded {code!r}."]})
    if series is None or not _series_in_use(series.pk):
        return
    changed = [
        name
        for name in ("code", "document_type", "next_number")
        if name in fields and fields[name] != getattr(series, name)
    ]
    if changed:
        raise _conflict(
            f"The series {series.code} has issued documents: its {', '.join(changed)} cannot "
            "change (make a new series).",
            SERIES_IN_USE,
        )


@transaction.atomic
def series_create(*, fields: dict) -> InvoiceSeries:
    series_check(fields)
    return InvoiceSeries.objects.create(**fields)


@transaction.atomic
def series_update(*, series_id: int, fields: dict) -> InvoiceSeries:
    series = _series_for_update(series_id)
    series_check(fields, series=series)
    for name, value in fields.items():
        setattr(series, name, value)
    series.save()
    return series


@transaction.atomic
def series_delete(*, series_id: int) -> None:
    series = _series_for_update(series_id)
    if Invoice.objects.filter(series=series).exists():
        raise _conflict(
            f"The series {series.code} has documents: deactivate it instead.", SERIES_IN_USE
        )
    series.delete()


def _series_for_update(series_id: int) -> InvoiceSeries:
    selectors.series_get(series_id)  # 404
    return InvoiceSeries.objects.select_for_update().get(pk=series_id)


# --- Settings -----------------------------------------------------------------------------------


def _series_param(name: str, series_id, problems: Problems):
    if series_id is None:
        return None
    series = InvoiceSeries.objects.filter(pk=series_id).first()
    if series is None:
        problems.add(name, f"No invoice series with id {series_id}.")
    return series


@transaction.atomic
def settings_update(*, fields: dict) -> InvoicingSettings:
    """Only the fields given change. `mydata_user_id` and `mydata_subscription_key` are sealed
    (an empty value removes one); the issuer's VAT number is checked with python-stdnum."""
    fields = dict(fields)
    problems = Problems()
    if "issuer_vat_number" in fields:
        fields["issuer_vat_number"] = tax_selectors.vat_number_clean(
            fields["issuer_vat_number"], name="issuer_vat_number"
        )
    for name in ("default_series", "order_series"):
        if f"{name}_id" in fields:
            fields[name] = _series_param(f"{name}_id", fields.pop(f"{name}_id"), problems)
    problems.raise_if_any()
    InvoicingSettings.objects.get_or_create(pk=1)
    row = InvoicingSettings.objects.select_for_update().get(pk=1)
    secrets = {
        name: fields.pop(f"mydata_{name}")
        for name in ("user_id", "subscription_key")
        if f"mydata_{name}" in fields
    }
    if secrets:
        row.credentials = crypto.seal({**crypto.unseal(row.credentials), **secrets})
    for name, value in fields.items():
        setattr(row, name, value)
    row.save()
    return row


# --- Drafts -------------------------------------------------------------------------------------


def _invoice_for_update(invoice_id: int) -> Invoice:
    selectors.invoice_get(invoice_id)  # 404
    return Invoice.objects.select_for_update().get(pk=invoice_id)


def _check_counterpart(fields: dict, problems: Problems) -> None:
    vat_number = fields.get("counterpart_vat_number")
    if not vat_number:
        return
    country = fields.get("counterpart_country") or ""
    if country and country not in tax_selectors.eu_countries():
        return  # a third country's tax number: kept as given
    try:
        fields["counterpart_vat_number"] = tax_selectors.vat_number_clean(
            vat_number, name="counterpart_vat_number"
        )
    except ServiceError as exc:  # the store's 400, named
        problems.extend(exc.errors or {"counterpart_vat_number": [exc.detail]})


def _draft_fields(fields: dict, problems: Problems, *, creating: bool) -> dict:
    fields = dict(fields)
    if "series_id" in fields or creating:
        series_id = fields.pop("series_id", None)
        if series_id is None:
            series = selectors.settings_row().default_series
            if series is None:
                problems.add("series_id", "Give a series (or set the default series).")
        else:
            series = InvoiceSeries.objects.filter(pk=series_id).first()
            if series is None:
                problems.add("series_id", f"No invoice series with id {series_id}.")
        if series is not None:
            if not series.active:
                problems.add("series_id", f"The series {series.code} is not active.")
            if series.document_type in CREDIT_TYPES:
                problems.add(
                    "series_id",
                    "Credit notes are made by POST /invoices/{id}/cancel, not as drafts.",
                )
            fields["series"] = series
            fields["document_type"] = series.document_type
    if "customer_id" in fields:
        customer_id = fields.pop("customer_id")
        customer = Customer.objects.filter(pk=customer_id).first() if customer_id else None
        if customer_id and customer is None:
            problems.add("customer_id", f"No customer with id {customer_id}.")
        fields["customer"] = customer
        if customer is not None and not fields.get("counterpart_name"):
            fields["counterpart_name"] = customer.company or " ".join(
                filter(None, (customer.first_name, customer.last_name))
            )
    if "billing_address" in fields:
        fields["billing_address"] = Address.of(fields["billing_address"] or {}).stored()
        if not fields.get("counterpart_country") and fields["billing_address"].get("country"):
            fields["counterpart_country"] = fields["billing_address"]["country"]
    _check_counterpart(fields, problems)
    if "lines" in fields:
        _check_lines(fields["lines"], problems)
    return fields


@transaction.atomic
def invoice_create(*, fields: dict, user=None) -> Invoice:
    """A draft: its series (default: the settings' default series), counterpart, currency,
    payment method and lines (each with its VAT category); totals are computed."""
    problems = Problems()
    fields = _draft_fields(fields, problems, creating=True)
    problems.raise_if_any()
    lines = fields.pop("lines", [])
    invoice = Invoice.objects.create(created_by=logged_in(user), **fields)
    _write_lines(invoice, lines)
    return invoice


@transaction.atomic
def invoice_update(*, invoice_id: int, fields: dict) -> Invoice:
    """Only a draft changes (409 `invoice_not_draft`); `lines`, when given, replace them all."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is issued: it cannot change (cancel it by a credit note).", NOT_DRAFT
        )
    problems = Problems()
    fields = _draft_fields(fields, problems, creating=False)
    problems.raise_if_any()
    lines = fields.pop("lines", None)
    for name, value in fields.items():
        setattr(invoice, name, value)
    invoice.save()
    if lines is not None:
        _write_lines(invoice, lines)
    return invoice


@transaction.atomic
def invoice_delete(*, invoice_id: int) -> None:
    """Only a draft is deleted (409 `invoice_not_draft`: an issued document is cancelled by a
    credit note)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(
            f"{invoice} is issued: it is never deleted (cancel it by a credit note).", NOT_DRAFT
        )
    invoice.delete()


# --- Issue and cancel ---------------------------------------------------------------------------


def _number(invoice: Invoice) -> None:
    """The series' next number, the series row locked until the transaction ends."""
    series = InvoiceSeries.objects.select_for_update().get(pk=invoice.series_id)
    invoice.number = series.next_number
    invoice.full_number = f"{series.prefix}{series.next_number}"
    series.next_number += 1
    series.save(update_fields=["next_number", "updated_at"])


def _issue(invoice: Invoice) -> None:
    _number(invoice)
    now = timezone.now()
    invoice.status = InvoiceStatus.ISSUED
    invoice.issued_at = now
    invoice.issue_date = invoice.issue_date or timezone.localdate(now)
    invoice.save()
    _announce(invoice)


def _announce(invoice: Invoice) -> None:
    """erp.core's `invoice_issued`, after the commit (the accounting posts it)."""
    corrected = invoice.corrects
    core_signals.send_after_commit(
        core_signals.invoice_issued,
        sender=Invoice,
        event={
            "invoice_id": invoice.pk,
            "number": invoice.full_number,
            "is_credit": invoice.document_type in CREDIT_TYPES,
            "corrects_id": invoice.corrects_id,
            "date": invoice.issue_date.isoformat(),
            "currency": invoice.currency,
            "net_total": str(invoice.net_total),
            "vat_total": str(invoice.vat_total),
            "gross_total": str(invoice.gross_total),
            "order_id": corrected.order_id if corrected is not None else invoice.order_id,
            "customer_id": invoice.customer_id,
            "counterpart_name": invoice.counterpart_name,
        },
    )


@transaction.atomic
def invoice_issue(*, invoice_id: int) -> Invoice:
    """Number a draft and freeze it. 409 `invoice_not_draft` when it is issued already,
    `invoice_incomplete` without lines or in an inactive series."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status != InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is issued already.", NOT_DRAFT)
    reasons = []
    if not InvoiceLine.objects.filter(invoice=invoice).exists():
        reasons.append("it has no lines")
    if not InvoiceSeries.objects.filter(pk=invoice.series_id, active=True).exists():
        reasons.append("its series is not active")
    if reasons:
        raise _conflict(f"The draft cannot be issued: {'; '.join(reasons)}.", INCOMPLETE)
    _issue(invoice)
    if selectors.settings_row().auto_transmit:
        _transmission_start(invoice)
    return invoice


def _credit_series(document_type: str) -> InvoiceSeries:
    """The active series of credit notes of `document_type` (made when there is none)."""
    series = (
        InvoiceSeries.objects.filter(document_type=document_type, active=True)
        .order_by("code")
        .first()
    )
    if series is not None:
        return series
    base = "CNR" if document_type == DocumentType.RETAIL_CREDIT_NOTE else "CN"
    code, n = base, 1
    while InvoiceSeries.objects.filter(code__iexact=code).exists():
        n += 1
        code = f"{base}{n}"
    return InvoiceSeries.objects.create(
        code=code,
        name=DocumentType(document_type).label,
        document_type=document_type,
        prefix=f"{code}-",
    )


@transaction.atomic
def invoice_cancel(*, invoice_id: int, reason: str = "", user=None) -> Invoice:
    """Cancel an issued document by a credit note: a new issued document of the credit type
    (5.1, or 11.4 for a retail receipt) in its own series, with the same lines, referencing
    the original (`corrects`); the original is marked cancelled. Answers the credit note.
    409: a draft (`invoice_is_draft`: delete it), a cancelled document (`invoice_cancelled`),
    a credit note (`invoice_not_cancellable`)."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: delete it instead.", IS_DRAFT)
    if invoice.status == InvoiceStatus.CANCELLED:
        raise _conflict(f"{invoice} is cancelled already.", ALREADY_CANCELLED)
    credit_type = credit_type_for(invoice.document_type)
    if credit_type is None:
        raise _conflict(f"{invoice} is a credit note: it cannot be cancelled.", NOT_CANCELLABLE)
    series = _credit_series(credit_type)
    note = f"Cancels {invoice.full_number}." + (f" {reason}" if reason else "")
    credit = Invoice.objects.create(
        series=series,
        document_type=credit_type,
        currency=invoice.currency,
        customer_id=invoice.customer_id,
        counterpart_name=invoice.counterpart_name,
        counterpart_vat_number=invoice.counterpart_vat_number,
        counterpart_country=invoice.counterpart_country,
        billing_address=invoice.billing_address,
        payment_method=invoice.payment_method,
        notes=note,
        corrects=invoice,
        created_by=logged_in(user),
    )
    lines = list(InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id"))
    for line in lines:
        line.pk = None
        line.invoice = credit
    InvoiceLine.objects.bulk_create(lines)
    _total(credit, lines)
    _issue(credit)
    invoice.status = InvoiceStatus.CANCELLED
    invoice.cancelled_at = timezone.now()
    invoice.save(update_fields=["status", "cancelled_at", "updated_at"])
    original = Transmission.objects.filter(invoice=invoice).first()
    if selectors.settings_row().auto_transmit or (
        original is not None and original.status == TransmissionStatus.SENT
    ):
        _transmission_start(credit)  # the authority knows the original: it learns of its end
    return credit


# --- From an order ------------------------------------------------------------------------------


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
    (None when the settings no longer ask for it or no series is set)."""
    row = selectors.settings_row()
    if not row.auto_invoice or not (row.order_series_id or row.default_series_id):
        return None
    invoice, _made = invoice_from_order(order_id=order_id)
    if invoice.status == InvoiceStatus.DRAFT:
        try:
            invoice_issue(invoice_id=invoice.pk)
        except ServiceError as exc:
            if exc.code != NOT_DRAFT:
                raise  # issued by a concurrent run is fine; anything else is not
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


# --- Transmission -------------------------------------------------------------------------------


def _transmission_start(invoice: Invoice) -> Transmission:
    provider = selectors.settings_row().provider
    transmission = Transmission.objects.select_for_update().filter(invoice=invoice).first()
    if transmission is None:
        transmission = Transmission(invoice=invoice)
    elif transmission.status in (TransmissionStatus.PENDING, TransmissionStatus.SENT):
        raise _conflict(
            f"{invoice} is {transmission.get_status_display().lower()} at the authority.",
            IN_PROGRESS,
        )
    transmission.provider = provider
    transmission.status = TransmissionStatus.PENDING
    transmission.mark = transmission.uid = transmission.qr_url = ""
    transmission.cancellation_mark = ""
    transmission.errors = []
    transmission.attempts = 0
    transmission.last_error = ""
    transmission.requested_at = timezone.now()
    transmission.sent_at = transmission.cancelled_at = None
    transmission.save()
    outbox.enqueue(
        TRANSMIT_TASK,
        kwargs={"invoice_id": invoice.pk},
        dedupe_key=f"{TRANSMIT_TASK}:{invoice.pk}",
    )
    return transmission


@transaction.atomic
def transmission_request(*, invoice_id: int) -> Transmission:
    """Send an issued document (or a cancelled one: the authority must know what its credit
    note cancels) to the authority of the settings, by a task. 409 `invoice_is_draft`,
    `transmission_in_progress` while pending or once sent. Rejected, failed and cancelled
    transmissions may be sent again."""
    invoice = _invoice_for_update(invoice_id)
    if invoice.status == InvoiceStatus.DRAFT:
        raise _conflict(f"{invoice} is a draft: issue it first.", IS_DRAFT)
    return _transmission_start(invoice)


def transmission_run(*, invoice_id: int) -> tuple[str, str]:
    """One attempt (the task): ("sent" | "rejected" | "failed" | "retry" | "skipped", detail).
    The transmission row stays locked during the call, so a redelivered task waits and then
    finds it sent (idempotent). A transient failure is recorded and answered "retry"."""
    with transaction.atomic():
        transmission = (
            Transmission.objects.select_for_update()
            .filter(invoice_id=invoice_id, status=TransmissionStatus.PENDING)
            .first()
        )
        if transmission is None:
            return "skipped", ""
        invoice = Invoice.objects.select_related("series").get(pk=invoice_id)
        document = selectors.document_of(invoice)
        provider = selectors.provider_for(transmission.provider)
        transmission.attempts += 1
        transmission.last_attempt_at = timezone.now()
        try:
            outcome = provider.send(document)
        except Transient as exc:
            transmission.last_error = str(exc)[:500]
            transmission.save()
            return "retry", transmission.last_error
        except NotConfigured as exc:
            transmission.status = TransmissionStatus.FAILED
            transmission.errors = [{"code": "credentials", "message": str(exc)}]
            transmission.last_error = str(exc)[:500]
            transmission.save()
            return "failed", transmission.last_error
        if outcome.accepted:
            transmission.status = TransmissionStatus.SENT
            transmission.mark, transmission.uid = outcome.mark, outcome.uid
            transmission.qr_url = outcome.qr_url[:500]
            transmission.sent_at = timezone.now()
            transmission.errors, transmission.last_error = [], ""
        else:
            transmission.status = TransmissionStatus.REJECTED
            transmission.errors = [error.as_dict() for error in outcome.errors]
            transmission.last_error = "; ".join(e.message for e in outcome.errors)[:500]
        transmission.save()
        return transmission.status, transmission.last_error


def transmission_gave_up(*, invoice_id: int, error: str) -> None:
    """Every retry failed: the transmission is `failed` (POST /transmit sends it again)."""
    Transmission.objects.filter(invoice_id=invoice_id, status=TransmissionStatus.PENDING).update(
        status=TransmissionStatus.FAILED,
        last_error=error[:500],
        errors=[{"code": "unavailable", "message": error[:500]}],
    )


@transaction.atomic
def transmission_cancel(*, invoice_id: int) -> Transmission:
    """Cancel a sent document at the authority (myDATA CancelInvoice by its mark), now.
    409 `transmission_not_sent`, `authority_not_configured`; 502 `authority_unavailable`,
    `authority_refused` (its reasons); nothing changes then."""
    _invoice_for_update(invoice_id)
    transmission = Transmission.objects.select_for_update().filter(invoice_id=invoice_id).first()
    if transmission is None or transmission.status != TransmissionStatus.SENT:
        raise _conflict("The document has not been sent to the authority.", NOT_SENT)
    provider = selectors.provider_for(transmission.provider)
    try:
        result = provider.cancel(transmission.mark)
    except Transient as exc:
        raise rule_broken(str(exc), code=UNAVAILABLE, status=502) from exc
    except NotConfigured as exc:
        raise _conflict(str(exc), NOT_CONFIGURED) from exc
    if not isinstance(result, Cancelled):
        reasons = "; ".join(f"{e.code}: {e.message}" for e in result.errors)
        raise rule_broken(
            f"The authority refused the cancellation: {reasons}", code=REFUSED, status=502
        )
    transmission.status = TransmissionStatus.CANCELLED
    transmission.cancellation_mark = result.cancellation_mark
    transmission.cancelled_at = timezone.now()
    transmission.save()
    return transmission


def transmission_test() -> dict:
    """A real call to the configured authority with the stored credentials:
    {provider, ok, message}; 502 `authority_unavailable` when it cannot be reached."""
    provider = selectors.provider_for()
    try:
        message = provider.test_credentials()
    except NotConfigured as exc:
        return {"provider": provider.name, "ok": False, "message": str(exc)}
    except Transient as exc:
        raise rule_broken(str(exc), code=UNAVAILABLE, status=502) from exc
    return {"provider": provider.name, "ok": True, "message": message}
