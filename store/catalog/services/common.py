"""Helpers shared by the catalog's write services."""

from __future__ import annotations

from store.catalog.models import Product, Variant
from store.catalog.rules import barcode_problem, sale_price_problem
from store.common.errors import not_found
from store.common.problems import Problems


def existing_or_new(model, pk: int | None, resource: str):
    """The row with this id (404 `<resource>_not_found`), or a new unsaved one without an id:
    what the admin's checks validate before they save through the services."""
    if pk is None:
        return model()
    row = model.objects.filter(pk=pk).first()
    if row is None:
        raise not_found(resource, pk)
    return row


def check_sale_price(problems: Problems, fields: dict, row: Product | Variant) -> None:
    """The one sale-price rule (store.catalog.rules.sale_price_problem) on the prices a write
    leaves: those sent, else the row's."""
    problem = sale_price_problem(
        fields.get("regular_price", row.regular_price), fields.get("sale_price", row.sale_price)
    )
    if problem:
        problems.add("sale_price", problem)


def sku_taken(sku: str, *, product_id: int | None = None, variant_id: int | None = None) -> bool:
    """SKUs are unique across products and variants."""
    products = Product.objects.filter(sku=sku)
    if product_id:
        products = products.exclude(pk=product_id)
    variants = Variant.objects.filter(sku=sku)
    if variant_id:
        variants = variants.exclude(pk=variant_id)
    return products.exists() or variants.exists()


def barcode_taken(code: str, *, product_id: int | None = None, variant_id: int | None = None):
    """Barcodes (product EAN, variant barcode) are unique across products and variants."""
    products = Product.objects.filter(ean=code)
    if product_id:
        products = products.exclude(pk=product_id)
    variants = Variant.objects.filter(barcode=code)
    if variant_id:
        variants = variants.exclude(pk=variant_id)
    return products.exists() or variants.exists()


def check_identifiers(
    problems: Problems,
    *,
    sku: str | None,
    barcode: str | None,
    barcode_param: str,
    product_id: int | None = None,
    variant_id: int | None = None,
) -> None:
    if sku and sku_taken(sku, product_id=product_id, variant_id=variant_id):
        problems.add(
            "sku",
            f"SKU {sku!r} is already used by another product or variant.",
            code="duplicate_sku",
        )
    if barcode:
        problem = barcode_problem(barcode)
        if problem:
            problems.add(barcode_param, problem, code="invalid_barcode")
        elif barcode_taken(barcode, product_id=product_id, variant_id=variant_id):
            problems.add(
                barcode_param,
                f"Barcode {barcode} is already used by another product or variant.",
                code="duplicate_barcode",
            )
