"""The customer and supplier portal's settings (one row): every write checked here."""

from __future__ import annotations

import re

from django.db import transaction

from common import audit
from erp.core.models import ErpPortalSettings, PortalDocument, SupplierDocument
from erp.core.selectors import portal as selectors
from store.common.accounts import logged_in
from store.common.problems import Problems

FIELDS = (
    "enabled",
    "customer_documents",
    "suppliers_enabled",
    "supplier_documents",
    "welcome_text",
    "brand_colour",
)
WELCOME_MAX = 2000
COLOUR = re.compile(r"^#[0-9a-fA-F]{6}\Z")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # newlines and tabs are text


def _documents(problems: Problems, name: str, value, choices) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        problems.add(name, "A list of document kinds.")
        return None
    unknown = [v for v in value if v not in choices.values]
    if unknown:
        problems.add(
            name,
            f"Unknown: {', '.join(map(repr, unknown[:10]))[:300]} (one of "
            f"{', '.join(choices.values)}).",
        )
        return None
    return [v for v in choices.values if v in value]  # their order, once each


def _clean(fields: dict, row: ErpPortalSettings) -> dict:
    problems = Problems()
    values = {}
    for name in ("enabled", "suppliers_enabled"):
        if name in fields:
            if not isinstance(fields[name], bool):
                problems.add(name, "true or false.")
            else:
                values[name] = fields[name]
    for name, choices in (
        ("customer_documents", PortalDocument),
        ("supplier_documents", SupplierDocument),
    ):
        if name in fields:
            cleaned = _documents(problems, name, fields[name], choices)
            if cleaned is not None:
                values[name] = cleaned
    if "welcome_text" in fields:
        text = fields["welcome_text"]
        if not isinstance(text, str) or len(text) > WELCOME_MAX or _CONTROL.search(text):
            problems.add(
                "welcome_text", f"Text of at most {WELCOME_MAX} characters, no control characters."
            )
        else:
            values["welcome_text"] = text.strip()
    if "brand_colour" in fields:
        colour = fields["brand_colour"]
        if not isinstance(colour, str) or not COLOUR.match(colour):
            problems.add("brand_colour", "A colour as #RRGGBB (hexadecimal).")
        else:
            values["brand_colour"] = colour.lower()
    problems.raise_if_any()
    after = {name: values.get(name, getattr(row, name)) for name in FIELDS}
    if after["enabled"] and not after["customer_documents"]:
        problems.add("customer_documents", "An enabled portal shows at least one document kind.")
    if after["suppliers_enabled"] and not after["supplier_documents"]:
        problems.add("supplier_documents", "An enabled portal shows at least one document kind.")
    problems.raise_if_any()
    return values


def portal_settings_check(*, fields: dict) -> None:
    """The refusals of an update, without making it (the admin's form shows them)."""
    _clean(fields, selectors.portal_settings())


@transaction.atomic
def portal_settings_update(*, fields: dict, user=None) -> ErpPortalSettings:
    """Change some of the portal's settings (400 naming each bad one; nothing changes then):
    `enabled` (needs a customer document kind), `customer_documents` (invoices,
    credit_notes, orders), `suppliers_enabled`, `supplier_documents` (purchase_orders,
    goods_received), `welcome_text` (up to 2000 characters), `brand_colour` (#RRGGBB)."""
    ErpPortalSettings.objects.get_or_create(pk=1)
    row = ErpPortalSettings.objects.select_for_update().get(pk=1)
    values = _clean(fields, row)
    tracker = audit.track(row, FIELDS)
    for name, value in values.items():
        setattr(row, name, value)
    row.updated_by = logged_in(user)
    row.save()
    tracker.record()
    return row
