"""Issuing and crediting a document (private to this package): the authority's rules checked
first (refusing before any number is taken), the series' next number under the series' row
lock, the announcement after the commit; a credit note with given lines or giving back an
amount, and the credit notes of an order's refunds.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Q, Sum
from django.utils import timezone

from common.errors import ServiceError
from erp.core import signals as core_signals
from erp.invoicing import selectors
from erp.invoicing.choices import (
    CREDIT_TYPES,
    VAT_RATES,
    DocumentType,
    InvoiceStatus,
    TransmissionStatus,
    credit_type_for,
)
from erp.invoicing.models import Invoice, InvoiceLine, InvoiceSeries, Transmission
from erp.invoicing.services._shared import CENT, _total, _transmission_start, _vat_fits
from erp.invoicing.services.rules import issue_problems
from store.common.accounts import logged_in
from store.common.money import allocate_cents, from_cents, money, to_cents
from store.orders.choices import PaymentKind, PaymentRecordStatus
from store.orders.models import Payment


def _check_issuable(invoice: Invoice) -> None:
    """409 naming the first rule broken (every problem in the message and `data.params`)."""
    problems = issue_problems(invoice)
    if not problems:
        return
    errors: dict[str, list[str]] = {}
    for _code, field, message in problems:
        errors.setdefault(field, []).append(message)
    what = f"The credit note of {invoice.corrects}" if invoice.corrects_id else str(invoice)
    reasons = " ".join(message for _code, _field, message in problems)
    raise ServiceError(
        f"{what} cannot be issued: the tax authority would reject it. {reasons}",
        code=problems[0][0],
        status_code=409,
        errors=errors,
    )


def _number(invoice: Invoice) -> None:
    """The series' next number, the series row locked until the transaction ends."""
    series = InvoiceSeries.objects.select_for_update().get(pk=invoice.series_id)
    invoice.number = series.next_number
    invoice.full_number = f"{series.prefix}{series.next_number}"
    series.next_number += 1
    series.save(update_fields=["next_number", "updated_at"])


def _issue(invoice: Invoice) -> None:
    """Check the authority's rules (refusing before any number is taken), number, announce."""
    _check_issuable(invoice)
    _number(invoice)
    now = timezone.now()
    invoice.status = InvoiceStatus.ISSUED
    invoice.issued_at = now
    invoice.issue_date = invoice.issue_date or timezone.localdate(now)
    invoice.auto_issue_error = ""
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


def _credited(invoice: Invoice, **filters) -> Decimal:
    """The gross its credit notes gave back."""
    notes = Invoice.objects.filter(corrects=invoice, **filters)
    return money(notes.aggregate(total=Sum("gross_total"))["total"] or 0)


def _open_groups(invoice: Invoice) -> list[dict]:
    """What is left to credit, per VAT category and exemption (in the order of the lines): the
    invoice's net and VAT less its credit notes'."""
    groups: dict[tuple, dict] = {}
    for line in InvoiceLine.objects.filter(invoice=invoice).order_by("position", "id"):
        group = groups.setdefault(
            (line.vat_category, line.vat_exemption),
            {
                "vat_category": line.vat_category,
                "vat_exemption": line.vat_exemption,
                "net": Decimal(0),
                "vat": Decimal(0),
            },
        )
        group["net"] += line.net_amount
        group["vat"] += line.vat_amount
    for line in InvoiceLine.objects.filter(invoice__corrects=invoice):
        group = groups.get((line.vat_category, line.vat_exemption))
        if group is not None:
            group["net"] -= line.net_amount
            group["vat"] -= line.vat_amount
    return list(groups.values())


def _amount_lines(invoice: Invoice, amount: Decimal, what: str) -> list[dict]:
    """Credit-note lines giving back `amount` (gross) of the invoice: one per VAT category
    left, the amount shared in proportion to what is left of each (largest remainder, so the
    lines add up to it exactly); each share's net is its gross at the category's rate and its
    VAT the rest. A share that finishes its category takes exactly the net and VAT left when
    they fit the rate, so a document credited in full gives back its exact net and VAT."""
    groups = _open_groups(invoice)
    weights = [max(to_cents(group["net"] + group["vat"]), 0) for group in groups]
    shares = allocate_cents(min(to_cents(amount), sum(weights)), weights)
    lines = []
    for group, share, weight in zip(groups, shares, weights, strict=True):
        if share <= 0:
            continue
        category, gross = group["vat_category"], from_cents(share)
        rate = VAT_RATES[category]
        exact = (
            share == weight
            and group["net"] >= 0
            and group["vat"] >= 0
            and _vat_fits(group["net"], group["vat"], category)
        )
        if exact:
            net, vat = group["net"], group["vat"]
        else:
            net = (gross * 100 / (100 + rate)).quantize(CENT, rounding=ROUND_HALF_UP)
            vat = gross - net
        lines.append(
            {
                "description": (
                    f"{what} at {format(rate.normalize(), 'f')}% VAT" if rate else f"{what}, 0% VAT"
                )[:255],
                "sku": "",
                "quantity": Decimal(1),
                "unit_price": net,
                "discount": Decimal(0),
                "net_amount": net,
                "vat_category": category,
                "vat_exemption": group["vat_exemption"],
                "vat_amount": vat,
                "gross_amount": gross,
            }
        )
    return lines


def _credit_note(
    invoice: Invoice, lines: list[dict], *, notes: str, refund_payment_id=None, user=None
) -> Invoice:
    """Issue a credit note of the (locked) `invoice` with `lines`: the credit type of its
    document type (5.1; 11.4 for a retail receipt), numbered in its series like any document
    (after the authority's rules are checked), announced (the accounting posts it). The
    invoice is cancelled once its credit notes give back its whole total. When the invoice
    was sent to the authority (or `auto_transmit` is set), the note is sent too."""
    credit_type = credit_type_for(invoice.document_type)
    credit = Invoice.objects.create(
        series=_credit_series(credit_type),
        document_type=credit_type,
        currency=invoice.currency,
        customer_id=invoice.customer_id,
        counterpart_name=invoice.counterpart_name,
        counterpart_vat_number=invoice.counterpart_vat_number,
        counterpart_country=invoice.counterpart_country,
        billing_address=invoice.billing_address,
        payment_method=invoice.payment_method,
        notes=notes,
        corrects=invoice,
        refund_payment_id=refund_payment_id,
        created_by=logged_in(user),
    )
    rows = [
        InvoiceLine(invoice=credit, position=position, **line)
        for position, line in enumerate(lines, start=1)
    ]
    InvoiceLine.objects.bulk_create(rows)
    _total(credit, rows)
    _issue(credit)
    if _credited(invoice) >= invoice.gross_total:
        invoice.status = InvoiceStatus.CANCELLED
        invoice.cancelled_at = timezone.now()
        invoice.save(update_fields=["status", "cancelled_at", "updated_at"])
    original = Transmission.objects.filter(invoice=invoice).first()
    if selectors.settings_row().auto_transmit or (
        original is not None and original.status == TransmissionStatus.SENT
    ):
        _transmission_start(credit)  # the authority knows the original: it learns of the note
    return credit


def _refund_share(invoice: Invoice, refund: Payment) -> Decimal:
    """How much of `refund` the invoice's credit note gives back: the refund, less what of the
    order's refunds only returned an overpayment (paid beyond the invoice's total), and never
    more than is left uncredited on the invoice."""
    sums = Payment.objects.filter(
        order_id=invoice.order_id, status=PaymentRecordStatus.COMPLETED
    ).aggregate(
        paid=Sum("amount", filter=Q(kind=PaymentKind.PAYMENT)),
        refunded=Sum("amount", filter=Q(kind=PaymentKind.REFUND)),
    )
    paid, refunded = money(sums["paid"] or 0), money(sums["refunded"] or 0)
    due = min(refunded, max(invoice.gross_total - paid + refunded, Decimal(0)))
    given = _credited(invoice, refund_payment_id__isnull=False)
    left = invoice.gross_total - _credited(invoice)
    return max(min(refund.amount, due - given, left), Decimal(0))


def _refund_note(invoice: Invoice, refund: Payment, *, user=None) -> Invoice | None:
    amount = _refund_share(invoice, refund)
    lines = _amount_lines(invoice, amount, f"Refund on {invoice}") if amount > 0 else []
    if not lines:
        return None
    order = invoice.order
    return _credit_note(
        invoice,
        lines,
        notes=f"Refund of {amount} {invoice.currency} on order {order.order_number} "
        f"(payment {refund.pk}): credits {invoice.full_number}.",
        refund_payment_id=refund.pk,
        user=user,
    )


def _credit_refunds(invoice: Invoice, *, user=None) -> list[Invoice]:
    """The credit notes of the order's completed refunds that have none yet, oldest first
    (`invoice` locked and issued)."""
    if invoice.order_id is None:
        return []
    noted = Invoice.objects.filter(corrects=invoice, refund_payment_id__isnull=False)
    refunds = (
        Payment.objects.filter(
            order_id=invoice.order_id,
            kind=PaymentKind.REFUND,
            status=PaymentRecordStatus.COMPLETED,
        )
        .exclude(pk__in=noted.values("refund_payment_id"))
        .order_by("paid_at", "id")
    )
    made = []
    for refund in refunds:
        if invoice.status != InvoiceStatus.ISSUED:
            break  # credited in full
        note = _refund_note(invoice, refund, user=user)
        if note is not None:
            made.append(note)
    return made
