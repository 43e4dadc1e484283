"""A purchase order as the supplier receives it: an A4 PDF drawn with reportlab (the store's
fonts and text helpers of store.courier.labels: DejaVu Sans when the system has it), and the
text of the e-mail that carries it.

Reads what it is given (an order with its supplier, warehouse and lines loaded: selectors
.order_get) and the store's settings; writes nothing.
"""

from __future__ import annotations

import io

from common.pdf import fit as _fit
from common.pdf import font as _font
from common.pdf import text as _text
from store.common.formats import decimal_str
from store.common.money import money_str
from store.emails import selectors as email_selectors
from store.inventory import selectors as inventory_selectors
from store.settings import selectors as store_settings

COLUMNS = (  # title, x offset (mm), width (mm), right-aligned
    ("#", 0, 8, False),
    ("SKU", 8, 28, False),
    ("Supplier SKU", 36, 26, False),
    ("Description", 62, 54, False),
    ("Qty", 116, 14, True),
    ("Unit price", 130, 24, True),
    ("Amount", 154, 32, True),
)


def unit_price(value) -> str:
    """A unit price with two places, or up to four when it has them (1.10, 1.2345)."""
    exact = value.normalize()
    return money_str(value) if exact.as_tuple().exponent >= -2 else decimal_str(exact)


def store_name() -> str:
    return str(store_settings.get_value("general", "store_name"))


def sender() -> str:
    """The store's From header (the e-mail settings' sender)."""
    return email_selectors.sender()


def _supplier_lines(supplier) -> list[str]:
    lines = [
        supplier.name,
        supplier.contact_name and f"Attn: {supplier.contact_name}",
        supplier.address_1,
        supplier.address_2,
        " ".join(filter(None, (supplier.postcode, supplier.city))),
        supplier.country,
        supplier.vat_number and f"VAT: {supplier.vat_number}",
        supplier.email,
        supplier.phone,
    ]
    return [line for line in lines if line]


def _warehouse_lines(warehouse) -> list[str]:
    lines = [
        warehouse.name,
        warehouse.address,
        " ".join(filter(None, (warehouse.postcode, warehouse.city))),
        warehouse.country,
    ]
    return [line for line in lines if line]


def order_pdf(order) -> bytes:
    """The order as an A4 PDF: the store and the supplier, dates, terms, where to deliver,
    one row per line (page breaks repeat the header), the total and the notes. An order
    without a warehouse is delivered to the default one."""
    # reportlab loads with the first PDF drawn, not with every process that loads the app
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    out = io.BytesIO()
    width, height = A4
    canvas = Canvas(out, pagesize=A4, pageCompression=1)
    canvas.setTitle(f"Purchase order {order.number}")
    canvas.setAuthor(store_name())
    font, margin = _font(), 12 * mm
    supplier = order.supplier
    deliver_to = order.warehouse or inventory_selectors.warehouse_get(0)
    # Callers hand the lines loaded (order_get); `.all()` reads the prefetched ones.
    lines = list(order.lines.all())

    def heading() -> float:
        canvas.setFont(font, 16)
        canvas.drawString(margin, height - margin - 6 * mm, _text(f"Purchase order {order.number}"))
        canvas.setFont(font, 10)
        canvas.drawRightString(width - margin, height - margin - 6 * mm, _text(store_name()))
        return height - margin - 14 * mm

    def table_header(y: float) -> float:
        canvas.setFont(font, 8)
        for title, x, w, right in COLUMNS:
            if right:
                canvas.drawRightString(margin + (x + w - 1) * mm, y, title)
            else:
                canvas.drawString(margin + x * mm, y, title)
        canvas.line(margin, y - 1.5 * mm, width - margin, y - 1.5 * mm)
        return y - 6 * mm

    y = heading()
    # supplier (left), order facts (right)
    canvas.setFont(font, 8)
    canvas.drawString(margin, y, "SUPPLIER")
    canvas.drawString(width / 2, y, "ORDER")
    canvas.setFont(font, 10)
    facts = [
        f"Order date: {order.order_date.isoformat()}",
        f"Expected: {order.expected_date.isoformat() if order.expected_date else '-'}",
        f"Currency: {order.currency}",
        f"Payment terms: {supplier.payment_terms_days} days",
        order.supplier_reference and f"Your reference: {order.supplier_reference}",
    ]
    left_y = right_y = y
    for line in _supplier_lines(supplier):
        left_y -= 5 * mm
        canvas.drawString(margin, left_y, _fit(canvas, line, 10, width / 2 - margin - 4 * mm))
    for line in filter(None, facts):
        right_y -= 5 * mm
        canvas.drawString(width / 2, right_y, _fit(canvas, line, 10, width / 2 - margin))
    right_y -= 8 * mm
    canvas.setFont(font, 8)
    canvas.drawString(width / 2, right_y, "DELIVER TO")
    canvas.setFont(font, 10)
    for line in _warehouse_lines(deliver_to):
        right_y -= 5 * mm
        canvas.drawString(width / 2, right_y, _fit(canvas, line, 10, width / 2 - margin))
    y = table_header(min(left_y, right_y) - 10 * mm)
    for index, line in enumerate(lines, start=1):
        if y < margin + 30 * mm:
            canvas.showPage()
            y = table_header(heading())
        values = (
            str(index),
            line.sku,
            line.supplier_sku,
            line.name,
            str(line.quantity),
            unit_price(line.unit_cost),
            money_str(line.quantity * line.unit_cost),
        )
        canvas.setFont(font, 8)
        for (_title, x, w, right), value in zip(COLUMNS, values, strict=True):
            text = _fit(canvas, value, 8, (w - 2) * mm)
            if right:
                canvas.drawRightString(margin + (x + w - 1) * mm, y, text)
            else:
                canvas.drawString(margin + x * mm, y, text)
        y -= 5 * mm
    canvas.line(margin, y + 2 * mm, width - margin, y + 2 * mm)
    canvas.setFont(font, 11)
    y -= 5 * mm
    canvas.drawRightString(
        width - margin - 1 * mm, y, f"Total: {money_str(order.total)} {order.currency}"
    )
    if order.notes:
        y -= 12 * mm
        canvas.setFont(font, 9)
        for text in order.notes.splitlines()[:12]:
            canvas.drawString(margin, y, _fit(canvas, text, 9, width - 2 * margin))
            y -= 4.5 * mm
    canvas.showPage()
    canvas.save()
    return out.getvalue()


def email_text(order, message: str = "") -> str:
    """The e-mail's body (the PDF is attached)."""
    supplier = order.supplier
    expected = order.expected_date.isoformat() if order.expected_date else "as agreed"
    parts = [
        f"Dear {supplier.contact_name or supplier.name},",
        "",
        f"Please find attached our purchase order {order.number} of "
        f"{order.order_date.isoformat()}, total {money_str(order.total)} {order.currency}, "
        f"for delivery by {expected}.",
    ]
    if message:
        parts += ["", message]
    parts += ["", "Kind regards,", store_name()]
    return "\n".join(parts)
