"""Catalog rules that are pure functions: prices, stock status, barcodes, slugs."""

from __future__ import annotations

from decimal import Decimal

from django.utils.text import slugify
from stdnum import ean as gtin

from store.catalog.choices import StockStatus


def derive_price(regular: Decimal | None, sale: Decimal | None) -> tuple[Decimal | None, bool]:
    """(price paid now, on sale): the sale price when it is below the regular price."""
    if regular is None:
        return None, False
    if sale is not None and sale < regular:
        return sale, True
    return regular, False


def sale_price_problem(regular: Decimal | None, sale: Decimal | None) -> str | None:
    """Why a sale price cannot go with this regular price, or None: a sale price needs a
    regular price and must be lower than it (so `derive_price` puts every sale price on sale).
    The products' and variants' services check with it, and through them the API and the
    admin."""
    if sale is None:
        return None
    if regular is None:
        return "A sale price needs a regular price."
    if sale >= regular:
        return "The sale price must be lower than the regular price."
    return None


def derive_stock_status(*, track: bool, quantity: int, backorders: bool, manual: str) -> str:
    """With tracking: in stock above zero, else on backorder when allowed, else out of stock.

    Without tracking the status is whatever was set by hand.
    """
    if not track:
        return manual
    if quantity > 0:
        return StockStatus.IN_STOCK
    return StockStatus.ON_BACKORDER if backorders else StockStatus.OUT_OF_STOCK


def combine_stock_status(statuses: list[str]) -> str:
    """A variable product's status: in stock if any variant is, else on backorder if any is."""
    if StockStatus.IN_STOCK in statuses:
        return StockStatus.IN_STOCK
    if StockStatus.ON_BACKORDER in statuses:
        return StockStatus.ON_BACKORDER
    return StockStatus.OUT_OF_STOCK


def barcode_problem(code: str) -> str | None:
    """Why `code` is not a valid EAN-8, UPC-A, EAN-13 or GTIN-14, or None when it is."""
    if not code.isdigit():
        return "A barcode has digits only."
    if len(code) not in (8, 12, 13, 14):
        return "A barcode has 8 (EAN-8), 12 (UPC-A), 13 (EAN-13) or 14 (GTIN-14) digits."
    if not gtin.is_valid(code):
        return "The check digit is wrong."
    return None


def base_slug(text: str, fallback: str) -> str:
    return slugify(text or "", allow_unicode=True)[:180].strip("-") or fallback


def unique_value(base: str, taken, *, separator: str = "-", limit: int = 255) -> str:
    """`base`, or `base-2`, `base-3`, ... the first that `taken(value)` says is free."""
    if not taken(base):
        return base
    number = 2
    while True:
        suffix = f"{separator}{number}"
        candidate = base[: limit - len(suffix)] + suffix
        if not taken(candidate):
            return candidate
        number += 1
