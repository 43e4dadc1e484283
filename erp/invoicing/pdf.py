"""An invoice as a PDF (reportlab's platypus, A4): issuer, document type and number, dates,
counterpart, the lines, the VAT breakdown by category, the totals and, once the authority has
it, its mark, uid and a QR code of its URL.

Text is set in DejaVu Sans when the system has it (Greek prints as it is), else in Helvetica
with the characters it lacks replaced.
"""

from __future__ import annotations

import io
from xml.sax.saxutils import escape

from reportlab.graphics.barcode import qr
from reportlab.graphics.shapes import Drawing
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from common import pdf
from erp.invoicing.choices import VAT_RATES, DocumentType, PaymentMethod
from erp.invoicing.models import Invoice, InvoicingSettings, Transmission
from erp.invoicing.selectors import vat_breakdown
from store.common.addresses import Address

_font = pdf.font  # the project's PDF font (common.pdf)


def _t(value) -> str:
    """Text for a Paragraph: fit for the font (common.pdf), markup escaped."""
    return escape(pdf.text(value))


def _address(stored: dict) -> list[str]:
    a = Address.of(stored or {})
    lines = [
        a.address_1,
        a.address_2,
        " ".join(filter(None, (a.postcode, a.city))),
        " ".join(filter(None, (a.state, a.country))),
        a.email,
        a.phone,
    ]
    return [line for line in lines if line]


def _money(value, currency: str) -> str:
    return f"{value:,.2f} {currency}".replace(",", " ")


def _qr(url: str, size: float = 30 * mm) -> Drawing:
    code = qr.QrCodeWidget(url)
    x0, y0, x1, y1 = code.getBounds()
    drawing = Drawing(size, size, transform=[size / (x1 - x0), 0, 0, size / (y1 - y0), 0, 0])
    drawing.add(code)
    return drawing


def invoice_pdf(invoice: Invoice, settings: InvoicingSettings) -> bytes:
    """`invoice` with its lines and transmission (selectors.invoice_get)."""
    font = _font()
    normal = ParagraphStyle("n", fontName=font, fontSize=9, leading=11)
    small = ParagraphStyle("s", fontName=font, fontSize=7.5, leading=9, textColor=colors.grey)
    title = ParagraphStyle("t", fontName=font, fontSize=16, leading=20)
    out = io.BytesIO()
    number = invoice.full_number or f"DRAFT {invoice.pk}"
    doc = SimpleDocTemplate(
        out,
        pagesize=A4,
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=15 * mm,
        bottomMargin=15 * mm,
        title=f"{DocumentType(invoice.document_type).label} {number}",
        author=settings.issuer_name or "Emporion",
    )
    lines = list(invoice.lines.all())
    currency = invoice.currency
    story: list = []

    issuer = [f"<b>{_t(settings.issuer_name or 'Issuer')}</b>"]
    if settings.issuer_vat_number:
        issuer.append(f"VAT number: {_t(settings.issuer_vat_number)}")
    if settings.issuer_tax_office:
        issuer.append(f"Tax office: {_t(settings.issuer_tax_office)}")
    issuer += [_t(line) for line in _address(settings.issuer_address)]
    heading = [
        f"{_t(DocumentType(invoice.document_type).label)} ({_t(invoice.document_type)})",
        f"No. <b>{_t(number)}</b>",
        f"Series: {_t(invoice.series.code)}",
        f"Issue date: {_t(invoice.issue_date or '-')}",
        f"Status: {_t(invoice.get_status_display())}",
    ]
    if invoice.corrects_id:
        heading.append(f"Cancels: {_t(invoice.corrects.full_number)}")
    story.append(Paragraph(_t(DocumentType(invoice.document_type).label), title))
    story.append(
        Table(
            [[Paragraph("<br/>".join(issuer), normal), Paragraph("<br/>".join(heading), normal)]],
            colWidths=[95 * mm, 85 * mm],
            style=[("VALIGN", (0, 0), (-1, -1), "TOP")],
        )
    )
    story.append(Spacer(1, 5 * mm))
    counterpart = ["<b>Bill to</b>", _t(invoice.counterpart_name or "-")]
    if invoice.counterpart_vat_number:
        counterpart.append(f"VAT number: {_t(invoice.counterpart_vat_number)}")
    counterpart += [_t(line) for line in _address(invoice.billing_address)]
    payment = PaymentMethod(invoice.payment_method).label
    story.append(Paragraph("<br/>".join(counterpart), normal))
    story.append(Paragraph(f"Payment: {_t(payment)}; currency {_t(currency)}", normal))
    story.append(Spacer(1, 5 * mm))

    rows = [["#", "Description", "Qty", "Unit price", "Discount", "Net", "VAT %", "VAT", "Gross"]]
    for index, line in enumerate(lines, start=1):
        rows.append(
            [
                str(index),
                Paragraph(
                    _t(line.description) + (f"<br/>{_t(line.sku)}" if line.sku else ""), normal
                ),
                f"{line.quantity.normalize():f}",
                f"{line.unit_price:.2f}",
                f"{line.discount:.2f}",
                f"{line.net_amount:.2f}",
                f"{VAT_RATES[line.vat_category].normalize():f}",
                f"{line.vat_amount:.2f}",
                f"{line.gross_amount:.2f}",
            ]
        )
    table = Table(
        rows,
        colWidths=[7 * mm, 60 * mm, 13 * mm, 18 * mm, 16 * mm, 18 * mm, 12 * mm, 16 * mm, 20 * mm],
        repeatRows=1,
    )
    table.setStyle(
        TableStyle(
            [
                ("FONT", (0, 0), (-1, -1), font, 8),
                ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eeeeee")),
                ("ALIGN", (2, 0), (-1, -1), "RIGHT"),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
                ("LINEBELOW", (0, -1), (-1, -1), 0.5, colors.black),
            ]
        )
    )
    story += [table, Spacer(1, 5 * mm)]

    breakdown = [["VAT category", "Rate", "Net", "VAT"]]
    for group in vat_breakdown(lines):
        breakdown.append(
            [
                str(group["vat_category"]),
                f"{group['rate'].normalize():f}%",
                f"{group['net']:.2f}",
                f"{group['vat']:.2f}",
            ]
        )
    totals = [
        ["Net total", _money(invoice.net_total, currency)],
        ["VAT total", _money(invoice.vat_total, currency)],
        ["Total", _money(invoice.gross_total, currency)],
    ]
    style = [("FONT", (0, 0), (-1, -1), font, 8.5), ("ALIGN", (1, 0), (-1, -1), "RIGHT")]
    story.append(
        Table(
            [
                [
                    Table(
                        breakdown, style=[*style, ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black)]
                    ),
                    Table(
                        totals, style=[*style, ("LINEABOVE", (0, -1), (-1, -1), 0.5, colors.black)]
                    ),
                ]
            ],
            colWidths=[95 * mm, 85 * mm],
            style=[("VALIGN", (0, 0), (-1, -1), "TOP")],
        )
    )
    if invoice.notes:
        story += [Spacer(1, 4 * mm), Paragraph(_t(invoice.notes), normal)]

    try:
        transmission = invoice.transmission
    except Transmission.DoesNotExist:
        transmission = None
    if transmission is not None and transmission.mark:
        story.append(Spacer(1, 6 * mm))
        authority = [
            f"Authority mark (MARK): <b>{_t(transmission.mark)}</b>",
            f"UID: {_t(transmission.uid)}",
        ]
        if transmission.cancellation_mark:
            authority.append(f"Cancelled at the authority: {_t(transmission.cancellation_mark)}")
        if transmission.qr_url:
            authority.append(_t(transmission.qr_url))
        cells = [Paragraph("<br/>".join(authority), normal)]
        if transmission.qr_url:
            cells.append(_qr(transmission.qr_url))
        story.append(
            Table(
                [cells],
                colWidths=[140 * mm, 40 * mm][: len(cells)],
                style=[("VALIGN", (0, 0), (-1, -1), "MIDDLE")],
            )
        )
    story += [Spacer(1, 6 * mm), Paragraph(f"Document {_t(number)}", small)]
    doc.build(story)
    return out.getvalue()
