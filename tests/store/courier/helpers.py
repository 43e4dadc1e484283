"""Orders to ship and what the courier routes answer."""

from __future__ import annotations

import io

from pypdf import PdfReader

from tests.fixtures.store import API
from tests.store.orders.factories import line, make_order, stocked

ATHENS = {
    "first_name": "Ana",
    "last_name": "Pappas",
    "address_1": "Odos Ermou 12",
    "city": "Athens",
    "postcode": "10563",
    "country": "GR",
    "phone": "+302101234567",
}
COURIER = f"{API}/courier"


def order_to_ship(*, quantity: int = 2, status: str = "processing", **fields):
    fields.setdefault("shipping_address", ATHENS)
    return make_order(line(stocked(stock=50), quantity), status=status, **fields)


def order_url(order, tail: str) -> str:
    return f"{API}/orders/{order.pk}/courier/{tail}"


def pdf_text(content: bytes) -> tuple[PdfReader, str]:
    """The parsed PDF and its text (it must start as a PDF and parse)."""
    assert content.startswith(b"%PDF-"), content[:20]
    reader = PdfReader(io.BytesIO(content))
    return reader, "\n".join(page.extract_text() or "" for page in reader.pages)
