"""Suppliers (their VAT number checked) and their prices per item, currency and minimum
quantity.
"""

from __future__ import annotations

import stdnum
from django.db import transaction
from stdnum.exceptions import ValidationError as StdnumError

from erp.purchasing.models import PurchaseOrder, Supplier, SupplierPrice
from erp.purchasing.services._shared import _item, store_currency
from store.catalog.rules import base_slug, unique_value
from store.common.errors import invalid_params, not_found, rule_broken
from store.tax import vat_numbers

SUPPLIER_FIELDS = (
    "name",
    "code",
    "vat_number",
    "email",
    "phone",
    "contact_name",
    "website",
    "address_1",
    "address_2",
    "city",
    "postcode",
    "country",
    "currency",
    "payment_terms_days",
    "lead_time_days",
    "notes",
    "is_active",
)


def vat_number_clean(value: str, country: str = "") -> str:
    """A supplier's VAT number, compact, checked with python-stdnum: an EU number with its
    country prefix, or the national format of the supplier's country. ValueError otherwise."""
    text = (value or "").strip()
    if not text:
        return ""
    try:
        return vat_numbers.parse(text).number
    except ValueError as eu_problem:
        module = stdnum.get_cc_module(country.lower(), "vat") if country else None
        if module is None:
            raise ValueError(
                f"{eu_problem} Or give the supplier's country for its national format."
            ) from None
        try:
            return module.validate(text)
        except StdnumError as exc:
            raise ValueError(
                f"Not a valid VAT number of {country.upper()} ({exc.message.rstrip('.')})."
            ) from None


def _supplier_check(fields: dict, supplier: Supplier | None) -> dict:
    """The fields cleaned (VAT number compacted, code unique); 400 naming each problem."""
    problems: dict[str, list[str]] = {}
    cleaned = {name: fields[name] for name in SUPPLIER_FIELDS if name in fields}
    if supplier is None and not cleaned.get("name"):
        problems["name"] = ["A supplier needs a name."]
    if "name" in cleaned and not cleaned["name"].strip():
        problems["name"] = ["A supplier needs a name."]
    code = cleaned.get("code")
    if code:
        taken = Supplier.objects.filter(code=code)
        if supplier is not None:
            taken = taken.exclude(pk=supplier.pk)
        if taken.exists():
            problems["code"] = [f"Code {code!r} is already used."]
    if cleaned.get("vat_number") or ("country" in cleaned and supplier and supplier.vat_number):
        country = cleaned.get("country", supplier.country if supplier else "")
        number = cleaned.get("vat_number", supplier.vat_number if supplier else "")
        try:
            cleaned["vat_number"] = vat_number_clean(number, country or "")
        except ValueError as exc:
            problems["vat_number"] = [str(exc)]
    if cleaned.get("currency"):
        cleaned["currency"] = cleaned["currency"].upper()
    if problems:
        raise invalid_params(problems)
    return cleaned


def supplier_check(*, fields: dict, supplier_id: int | None = None) -> None:
    """What supplier_create/supplier_update would refuse (the admin's form check)."""
    supplier = Supplier.objects.filter(pk=supplier_id).first() if supplier_id else None
    _supplier_check(fields, supplier)


@transaction.atomic
def supplier_create(*, fields: dict) -> Supplier:
    cleaned = _supplier_check(fields, None)
    supplier = Supplier(**cleaned)
    if not supplier.currency:
        supplier.currency = store_currency()
    if not supplier.code:
        supplier.code = unique_value(
            base_slug(supplier.name, "supplier")[:60],
            lambda v: Supplier.objects.filter(code=v).exists(),
            limit=64,
        )
    supplier.save()
    return supplier


def _supplier_for_update(supplier_id: int) -> Supplier:
    supplier = Supplier.objects.select_for_update().filter(pk=supplier_id).first()
    if supplier is None:
        raise not_found("supplier", supplier_id)
    return supplier


@transaction.atomic
def supplier_update(*, supplier_id: int, fields: dict) -> Supplier:
    supplier = _supplier_for_update(supplier_id)
    cleaned = _supplier_check(fields, supplier)
    if cleaned.get("code") == "":
        cleaned.pop("code")
    if cleaned.get("currency") == "":
        cleaned.pop("currency")
    for name, value in cleaned.items():
        setattr(supplier, name, value)
    supplier.save()
    return supplier


@transaction.atomic
def supplier_delete(*, supplier_id: int) -> None:
    """Delete a supplier with no purchase orders (its prices go with it); one with orders is
    refused (409 supplier_in_use): deactivate it instead."""
    supplier = _supplier_for_update(supplier_id)
    if PurchaseOrder.objects.filter(supplier=supplier).exists():
        raise rule_broken(
            f"Supplier {supplier.name!r} has purchase orders; deactivate it instead "
            '(PATCH {"active": false}).',
            code="supplier_in_use",
            status=409,
        )
    supplier.delete()


# --- Supplier prices ----------------------------------------------------------------------------

PRICE_FIELDS = ("supplier_sku", "unit_price", "currency", "min_quantity", "lead_time_days")


def _price_duplicate(price: SupplierPrice) -> bool:
    same = SupplierPrice.objects.filter(
        supplier_id=price.supplier_id,
        product_id=price.product_id,
        variant_id=price.variant_id,
        currency=price.currency,
        min_quantity=price.min_quantity,
    )
    if price.pk:
        same = same.exclude(pk=price.pk)
    return same.exists()


def _price_check(price: SupplierPrice) -> None:
    if _price_duplicate(price):
        raise invalid_params(
            {
                "min_quantity": [
                    f"This supplier already has a {price.currency} price for this item from "
                    f"{price.min_quantity} units; change that one."
                ]
            },
            code="duplicate_supplier_price",
        )


def _price_build(price: SupplierPrice, fields: dict) -> SupplierPrice:
    """`price` with `fields` set (the item only on a new one), checked."""
    if price.pk is None:
        product, variant = _item(fields["product_id"], fields.get("variant_id"), "")
        price.product, price.variant = product, variant
    for name in PRICE_FIELDS:
        if name in fields:
            setattr(price, name, fields[name])
    price.currency = (price.currency or price.supplier.currency).upper()
    _price_check(price)
    return price


def supplier_price_check(*, fields: dict, price_id: int | None = None) -> None:
    """What supplier_price_create/update would refuse (the admin's form check)."""
    if price_id is not None:
        price = SupplierPrice.objects.select_related("supplier").filter(pk=price_id).first()
        if price is None:
            raise not_found("supplier_price", price_id)
    else:
        supplier = Supplier.objects.filter(pk=fields.get("supplier_id")).first()
        if supplier is None:
            raise invalid_params({"supplier_id": ["Choose a supplier."]})
        price = SupplierPrice(supplier=supplier)
    _price_build(price, fields)


@transaction.atomic
def supplier_price_create(*, supplier_id: int, fields: dict) -> SupplierPrice:
    supplier = _supplier_for_update(supplier_id)
    price = _price_build(SupplierPrice(supplier=supplier), fields)
    price.save()
    return price


def _price_for_update(price_id: int) -> SupplierPrice:
    price = SupplierPrice.objects.select_for_update().filter(pk=price_id).first()
    if price is None:
        raise not_found("supplier_price", price_id)
    return price


@transaction.atomic
def supplier_price_update(*, price_id: int, fields: dict) -> SupplierPrice:
    price = _price_for_update(price_id)
    if "currency" in fields and not fields["currency"]:
        fields = {**fields, "currency": price.supplier.currency}
    price = _price_build(price, fields)
    price.save()
    return price


@transaction.atomic
def supplier_price_delete(*, price_id: int) -> None:
    _price_for_update(price_id).delete()
