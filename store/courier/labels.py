"""PDF documents drawn with reportlab: a voucher's label (one page per parcel, 100 x 150 mm,
with a Code 128 barcode and a QR code of the voucher number, both addresses, the weight, the
parcel count and any cash on delivery) and a provider's pickup list for a day (A4).

Text is set in the project's PDF font (common.pdf: DejaVu Sans when the system has it).
"""

from __future__ import annotations

import io
from decimal import Decimal

from reportlab.graphics import renderPDF
from reportlab.graphics.barcode import code128, qr
from reportlab.graphics.shapes import Drawing
from reportlab.lib.pagesizes import A4
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from common import pdf
from store.common.addresses import Address

LABEL_SIZE = (100 * mm, 150 * mm)
# The project's PDF font and text (common.pdf), under the names this module has used.
_font = pdf.font
_text = pdf.text
_fit = pdf.fit


def address_lines(stored: dict) -> list[str]:
    a = Address.of(stored)
    lines = [
        " ".join(filter(None, (a.first_name, a.last_name))),
        a.company,
        a.address_1,
        a.address_2,
        " ".join(filter(None, (a.postcode, a.city))),
        " ".join(filter(None, (a.state, a.country))),
        a.phone,
    ]
    return [line for line in lines if line]


def _kg(weight) -> str:
    return f"{Decimal(weight).normalize():f} kg"


def label_pdf(voucher: dict) -> bytes:
    """`voucher`: provider_title, number, sender, recipient, weight, parcels, cod_amount,
    currency, reference, pickup_date."""
    out = io.BytesIO()
    width, height = LABEL_SIZE
    canvas = Canvas(out, pagesize=LABEL_SIZE, pageCompression=1)
    canvas.setTitle(f"Voucher {voucher['number']}")
    canvas.setAuthor("Emporion")
    font, margin, inner = _font(), 6 * mm, width - 12 * mm
    parcels = max(int(voucher["parcels"]), 1)
    for parcel in range(1, parcels + 1):
        y = height - margin - 5 * mm
        canvas.setFont(font, 11)
        canvas.drawString(margin, y, _fit(canvas, voucher["provider_title"], 11, inner))
        canvas.setFont(font, 8)
        canvas.drawRightString(width - margin, y, f"Parcel {parcel} of {parcels}")
        y -= 7 * mm
        canvas.setFont(font, 16)
        canvas.drawString(margin, y, _text(voucher["number"]))
        # Code 128 across the label, QR code at the right under it
        barcode = code128.Code128(
            voucher["number"], barHeight=16 * mm, barWidth=0.33 * mm, humanReadable=False
        )
        y -= 20 * mm
        barcode.drawOn(canvas, margin - barcode.lquiet, y)
        size = 26 * mm
        code = qr.QrCodeWidget(voucher["number"])
        x0, y0, x1, y1 = code.getBounds()
        drawing = Drawing(size, size, transform=[size / (x1 - x0), 0, 0, size / (y1 - y0), 0, 0])
        drawing.add(code)
        y -= size + 2 * mm
        renderPDF.draw(drawing, canvas, width - margin - size, y)
        canvas.setFont(font, 9)
        lines = [
            f"Weight: {_kg(voucher['weight'])}",
            f"Parcels: {parcels}",
            f"Pickup: {voucher['pickup_date']}",
        ]
        if Decimal(voucher["cod_amount"] or 0) > 0:
            lines.append(f"COD: {voucher['cod_amount']} {voucher.get('currency') or ''}".strip())
        if voucher.get("reference"):
            lines.append(f"Ref: {voucher['reference']}")
        line_y = y + size - 4 * mm
        for line in lines:
            canvas.drawString(margin, line_y, _fit(canvas, line, 9, inner - size - 2 * mm))
            line_y -= 4.5 * mm
        # the addresses: to (large), from (small)
        y -= 6 * mm
        canvas.setFont(font, 8)
        canvas.drawString(margin, y, "TO")
        canvas.setFont(font, 12)
        for line in address_lines(voucher["recipient"]):
            y -= 5.5 * mm
            canvas.drawString(margin, y, _fit(canvas, line, 12, inner))
        y -= 8 * mm
        canvas.setFont(font, 8)
        canvas.drawString(margin, y, "FROM")
        for line in address_lines(voucher["sender"]):
            y -= 4 * mm
            canvas.drawString(margin, y, _fit(canvas, line, 8, inner))
        canvas.showPage()
    canvas.save()
    return out.getvalue()


PICKUP_COLUMNS = (  # title, x offset (mm), width (mm)
    ("Voucher", 0, 34),
    ("Recipient", 34, 52),
    ("Postcode, city", 86, 48),
    ("Parcels", 134, 14),
    ("Weight", 148, 18),
    ("COD", 166, 20),
)


def pickup_list_pdf(*, provider_title: str, day, rows: list[dict], totals: dict) -> bytes:
    """The day's vouchers of one provider, to hand to the driver: one row each, then the
    totals and a signature line."""
    out = io.BytesIO()
    width, height = A4
    canvas = Canvas(out, pagesize=A4, pageCompression=1)
    canvas.setTitle(f"Pickup list {provider_title} {day}")
    font, margin = _font(), 12 * mm

    def header() -> float:
        canvas.setFont(font, 14)
        canvas.drawString(margin, height - margin - 6 * mm, _text(f"Pickup list: {provider_title}"))
        canvas.setFont(font, 10)
        canvas.drawRightString(width - margin, height - margin - 6 * mm, f"Date: {day}")
        y = height - margin - 16 * mm
        canvas.setFont(font, 8)
        for title, x, _w in PICKUP_COLUMNS:
            canvas.drawString(margin + x * mm, y, title)
        canvas.line(margin, y - 1.5 * mm, width - margin, y - 1.5 * mm)
        return y - 6 * mm

    y = header()
    for row in rows:
        if y < margin + 25 * mm:
            canvas.showPage()
            y = header()
        values = (
            row["number"],
            row["recipient_name"],
            row["destination"],
            str(row["parcels"]),
            _kg(row["weight"]),
            row["cod_amount"] if Decimal(row["cod_amount"] or 0) > 0 else "",
        )
        canvas.setFont(font, 8)
        for (_title, x, w), value in zip(PICKUP_COLUMNS, values, strict=True):
            canvas.drawString(margin + x * mm, y, _fit(canvas, value, 8, (w - 2) * mm))
        y -= 5 * mm
    canvas.line(margin, y + 2 * mm, width - margin, y + 2 * mm)
    canvas.setFont(font, 10)
    y -= 4 * mm
    canvas.drawString(
        margin,
        y,
        f"Vouchers: {totals['vouchers']}   Parcels: {totals['parcels']}   "
        f"Weight: {_kg(totals['weight'])}   COD: {totals['cod_amount']}",
    )
    y -= 14 * mm
    canvas.drawString(margin, y, "Collected by (name, signature): ______________________________")
    canvas.showPage()
    canvas.save()
    return out.getvalue()
