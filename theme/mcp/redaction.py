"""The one redaction of the AI tool endpoint: every answer of every ability passes through
`redact()` before it leaves the service.

- Values under personal keys (e-mail, phone, names, company, addresses, notes written by
  customers) are replaced by REDACTED, whatever their shape (an address object goes whole).
- In every other string, e-mail addresses and phone numbers are replaced too (a product
  description or an order note may quote them), except under keys that hold codes, amounts,
  dates or ids (a 13-digit EAN or a timestamp is not a phone number).
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

PERSONAL_KEYS = frozenset(
    {
        "email",
        "billing_email",
        "phone",
        "billing_phone",
        "first_name",
        "last_name",
        "full_name",
        "name",
        "customer_name",
        "display_name",
        "company",
        "address",
        "addresses",
        "billing_address",
        "shipping_address",
        "address_1",
        "address_2",
        "street",
        "postcode",
        "city",
        "customer_note",
        "note",
        "vat_number",
        "ip_address",
    }
)
STRUCTURED_KEYS = frozenset(
    {
        "id",
        "sku",
        "ean",
        "mpn",
        "gtin",
        "order_number",
        "currency",
        "status",
        "date_from",
        "date_to",
    }
)
STRUCTURED_SUFFIXES = (
    "_at",
    "_id",
    "_ids",
    "_date",
    "price",
    "total",
    "_sales",
    "_spent",
    "amount",
)

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+", re.UNICODE)
# A phone number: an optional +, then at least 8 digits, possibly grouped by spaces, dots,
# dashes, slashes or parentheses.
PHONE = re.compile(r"(?<![\w])\+?\(?\d(?:[\s().\-/]*\d){7,}(?![\w])")


def _structured(key: str | None) -> bool:
    return key is not None and (key in STRUCTURED_KEYS or key.endswith(STRUCTURED_SUFFIXES))


def redact_text(text: str) -> str:
    return PHONE.sub(REDACTED, EMAIL.sub(REDACTED, text))


def redact(value, key: str | None = None):
    """`value` (JSON-like: dicts, lists, strings, numbers) with personal data replaced."""
    if isinstance(value, dict):
        out = {}
        for name, item in value.items():
            name = str(name)
            if name.lower() in PERSONAL_KEYS:
                out[name] = REDACTED if item not in (None, "", [], {}) else item
            else:
                out[name] = redact(item, name.lower())
        return out
    if isinstance(value, list | tuple):
        return [redact(item, key) for item in value]
    if isinstance(value, str):
        return value if _structured(key) else redact_text(value)
    return value
