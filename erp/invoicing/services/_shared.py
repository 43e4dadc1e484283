"""What several modules of this package share (private to it): the refusal codes, a line's
amounts and an invoice's totals, the invoice's row lock, starting a transmission (by a task,
through the outbox) and recording why an automatic issue was refused.
"""

from __future__ import annotations

import logging
from decimal import ROUND_HALF_UP, Decimal

from django.utils import timezone

from common import outbox
from erp.core import filing
from erp.invoicing import selectors
from erp.invoicing.choices import VAT_RATES, TransmissionStatus
from erp.invoicing.models import Invoice, InvoiceLine, Transmission
from store.common.errors import rule_broken
from store.common.money import money

logger = logging.getLogger(__name__)

TRANSMIT_TASK = "erp_invoicing.transmit"

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


def _invoice_for_update(invoice_id: int) -> Invoice:
    selectors.invoice_get(invoice_id)  # 404
    return Invoice.objects.select_for_update().get(pk=invoice_id)


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


def _vat_fits(net: Decimal, vat: Decimal, category: int) -> bool:
    """The line's VAT is its net at its category's rate, within the cent the authority allows
    (a credit note split by amount may be a cent off; lines made from quantities are exact)."""
    expected = (net * VAT_RATES[category] / 100).quantize(CENT, rounding=ROUND_HALF_UP)
    return abs(expected - vat) <= CENT


def _transmission_start(invoice: Invoice) -> Transmission:
    provider = selectors.settings_row().provider
    transmission = Transmission.objects.select_for_update().filter(invoice=invoice).first()
    if transmission is None:
        transmission = Transmission(invoice=invoice)
    elif not filing.resendable(transmission.status):
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


def _auto_refused(invoice_id: int, message: str) -> None:
    """Record why an automatic issue was refused on the invoice (shown by the API and admin)."""
    logger.warning("invoicing: invoice %s: %s", invoice_id, message)
    Invoice.objects.filter(pk=invoice_id).update(auto_issue_error=message[:500])
