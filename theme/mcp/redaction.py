"""The one redaction of the AI tool endpoint: every answer of every ability passes through
`redact()` before it leaves the service. It hides personal data only, and what is personal is
decided by what a record is, not by a key's name alone:

- A record about a person (a customer, an employee, a user: the abilities wrap it in
  `person()`, and a record under a key such as `customer` or `employees` is one too) loses
  its identity fields: names, e-mail, phone, company, address lines, tax ids, notes. Its id,
  figures and country stay. A record that is not about a person keeps its `name` (a
  product's, a category's, a shipping zone's, a gateway's, a period's).
- Keys that only ever hold a person's data (first_name, email, billing_address, vat_number,
  ...) are redacted wherever they appear, whatever their shape (an address object goes whole),
  so a person's e-mail is not shown because a record was left unmarked.
- In every other string, e-mail addresses and phone numbers are replaced too (a product
  description or an order note may quote them), except under keys that hold codes, dates or
  ids (a 13-digit EAN or a timestamp is not a phone number). Numbers (amounts are Decimals
  until the answer is encoded) are never touched.
"""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# A person's data wherever it appears.
PERSONAL_KEYS = frozenset(
    {
        "email",
        "billing_email",
        "customer_email",
        "phone",
        "billing_phone",
        "mobile",
        "first_name",
        "last_name",
        "full_name",
        "customer_name",
        "addresses",
        "billing_address",
        "shipping_address",
        "customer_note",
        "vat_number",
        "tax_id",
        "ip_address",
        "date_of_birth",
        "iban",
    }
)
# A person's data in a record about a person; elsewhere these name things (a product, a
# category, a warehouse's city) and are shown.
IDENTITY_KEYS = frozenset(
    {
        "name",
        "display_name",
        "username",
        "company",
        "address",
        "address_1",
        "address_2",
        "street",
        "postcode",
        "city",
        "state",
        "note",
        "notes",
    }
)
# Records (or lists of records) under these keys are about a person.
PERSON_RECORD_KEYS = frozenset(
    {
        "customer",
        "customers",
        "employee",
        "employees",
        "user",
        "users",
        "buyer",
        "contact",
        "contacts",
        "actor",
        "author",
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
EMPTY = (None, "", [], {})


class Person(dict):
    """A record about a person: its identity fields are redacted (see IDENTITY_KEYS)."""


def person(record: dict) -> Person:
    return Person(record)


def _structured(key: str | None) -> bool:
    return key is not None and (key in STRUCTURED_KEYS or key.endswith(STRUCTURED_SUFFIXES))


def redact_text(text: str) -> str:
    return PHONE.sub(REDACTED, EMAIL.sub(REDACTED, text))


def redact(value, key: str | None = None, *, of_a_person: bool = False):
    """`value` (dicts, lists, strings, numbers, dates) with personal data replaced; plain
    dicts and lists come out (a `Person` is judged, then answered as a plain dict).
    `of_a_person`: a record here is about a person (it sits under such a key)."""
    if isinstance(value, dict):
        about_a_person = of_a_person or isinstance(value, Person)
        out = {}
        for name, item in value.items():
            name = str(name)
            lowered = name.lower()
            if lowered in PERSONAL_KEYS or (about_a_person and lowered in IDENTITY_KEYS):
                out[name] = item if item in EMPTY else REDACTED
            else:
                # a record inside a person's record (their orders, say) is judged on its own
                out[name] = redact(item, lowered, of_a_person=lowered in PERSON_RECORD_KEYS)
        return out
    if isinstance(value, list | tuple):
        return [redact(item, key, of_a_person=of_a_person) for item in value]
    if isinstance(value, str):
        if of_a_person:  # a person given as one string: their name or e-mail
            return value and REDACTED
        return value if _structured(key) else redact_text(value)
    return value
