"""Variant writes. Every one locks the product row (so combination checks cannot race) and
refreshes the product's derived prices and, through the inventory, its stock fields."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from store.catalog.models import Attribute, AttributeTerm, Product, Variant, VariantAttribute
from store.catalog.rules import derive_price
from store.catalog.services.common import check_identifiers, check_sale_price
from store.catalog.services.products import (
    check_variable,
    ensure_product_terms,
    get_for_update,
    next_sort_order,
    product_refresh,
)
from store.catalog.services.stock import stock_write
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.problems import Problems
from store.inventory import services as inventory
from store.media.models import MediaImage

PLAIN_FIELDS = (
    "sku",
    "barcode",
    "title",
    "regular_price",
    "sale_price",
    "track_inventory",
    "allow_backorders",
    "weight",
    "length",
    "width",
    "height",
    "enabled",
    "sort_order",
)


def _variant_for_update(variant_id: int) -> Variant:
    product_id = Variant.objects.filter(pk=variant_id).values_list("product_id", flat=True).first()
    if product_id is None:
        raise not_found("variant", variant_id)
    get_for_update(product_id)  # the product row is the lock of all its variants
    variant = Variant.objects.select_related("product").filter(pk=variant_id).first()
    if variant is None:
        raise not_found("variant", variant_id)
    return variant


def _resolve_terms(items: list[dict], problems: Problems) -> list[AttributeTerm]:
    attributes = {
        a.pk: a for a in Attribute.objects.filter(pk__in=[i["attribute_id"] for i in items])
    }
    terms = {t.pk: t for t in AttributeTerm.objects.filter(pk__in=[i["term_id"] for i in items])}
    seen: set[int] = set()
    out = []
    for index, item in enumerate(items):
        attribute = attributes.get(item["attribute_id"])
        term = terms.get(item["term_id"])
        if attribute is None:
            problems.add(
                f"attributes.{index}.attribute_id", f"No attribute with id {item['attribute_id']}."
            )
        elif attribute.pk in seen:
            problems.add(f"attributes.{index}.attribute_id", "Each attribute at most once.")
        elif term is None or term.attribute_id != attribute.pk:
            problems.add(
                f"attributes.{index}.term_id",
                f"Term {item['term_id']} is not a term of attribute {attribute.slug!r}.",
            )
        else:
            seen.add(attribute.pk)
            out.append(term)
    return out


def _combination_taken(product_id: int, term_ids: set[int], exclude_id: int | None) -> bool:
    combos: dict[int, set[int]] = {}
    rows = VariantAttribute.objects.filter(variant__product_id=product_id).values_list(
        "variant_id", "term_id"
    )
    for variant_id, term_id in rows:
        combos.setdefault(variant_id, set()).add(term_id)
    others = Variant.objects.filter(product_id=product_id)
    if exclude_id:
        others = others.exclude(pk=exclude_id)
    return any(combos.get(vid, set()) == term_ids for vid in others.values_list("pk", flat=True))


def _derive(variant: Variant) -> None:
    """The derived prices (the stock fields are the inventory's)."""
    variant.price, variant.on_sale = derive_price(variant.regular_price, variant.sale_price)


def _auto_title(product_title: str, terms: list[AttributeTerm]) -> str:
    names = ", ".join(term.name for term in terms)
    return f"{product_title} - {names}"[:255] if names else product_title[:255]


def _validated(variant: Variant, fields: dict, *, creating: bool):
    """(fields normalised, the terms or None, the image); every problem refuses."""
    product = variant.product
    fields = dict(fields)
    if "price" in fields:
        fields.setdefault("regular_price", fields.pop("price"))
    if creating:
        if "stock_quantity" in fields and "track_inventory" not in fields:
            fields["track_inventory"] = True
        if "regular_price" not in fields:
            fields["regular_price"] = product.regular_price
            fields.setdefault("sale_price", product.sale_price)
    problems = Problems()
    terms = None
    if "attributes" in fields:
        terms = _resolve_terms(fields["attributes"], problems)
    image = variant.image
    if "image_id" in fields:
        image = None
        if fields["image_id"] is not None:
            image = MediaImage.objects.filter(pk=fields["image_id"]).first()
            if image is None:
                problems.add("image_id", f"No image with id {fields['image_id']}.")
    check_sale_price(problems, fields, variant)
    if "stock_status" in fields and fields.get("track_inventory", variant.track_inventory):
        problems.add(
            "stock_status",
            "The stock status follows stock_quantity while track_inventory is on.",
        )
    check_identifiers(
        problems,
        sku=fields.get("sku"),
        barcode=fields.get("barcode"),
        barcode_param="barcode",
        variant_id=variant.pk,
    )
    problems.raise_if_any()
    if terms is not None and _combination_taken(product.pk, {t.pk for t in terms}, variant.pk):
        raise rule_broken(
            "Another variant of this product has the same attributes.",
            code="variant_exists",
            status=409,
        )
    return fields, terms, image


def variant_check(*, fields: dict, product: Product, variant_id: int | None = None) -> None:
    """Refuse what variant_create (without an id) or variant_update would refuse, writing
    nothing (the admin's forms check with it before they save through them)."""
    if variant_id is None:
        check_variable(product)
        _validated(Variant(product=product), fields, creating=True)
        return
    variant = Variant.objects.select_related("product").filter(pk=variant_id).first()
    if variant is None:
        raise not_found("variant", variant_id)
    _validated(variant, fields, creating=False)


def _write(variant: Variant, fields: dict, *, creating: bool, user=None) -> Variant:
    product = variant.product
    fields, terms, image = _validated(variant, fields, creating=creating)
    for name in PLAIN_FIELDS:
        if name in fields:
            setattr(variant, name, fields[name])
    variant.image = image
    if creating and "sort_order" not in fields:
        variant.sort_order = next_sort_order(Variant.objects.filter(product=product))
    if (
        terms is not None
        and not fields.get("title")
        and (creating or not variant.title or _was_auto(variant))
    ):
        variant.title = _auto_title(product.title, terms)
    elif creating and not variant.title:
        variant.title = product.title[:255]
    _derive(variant)
    try:
        with transaction.atomic():
            variant.save()
    except IntegrityError:
        raise invalid_params(
            {"sku": ["SKU or barcode already used by another variant."]}, code="duplicate_sku"
        ) from None
    if terms is not None:
        VariantAttribute.objects.filter(variant=variant).delete()
        VariantAttribute.objects.bulk_create(
            VariantAttribute(variant=variant, attribute_id=term.attribute_id, term=term)
            for term in terms
        )
        ensure_product_terms(product=product, terms=terms)
    stock_write(
        product=product,
        variant=variant,
        quantity=fields.get("stock_quantity"),
        manual_status=fields.get("stock_status"),
        user=user,
    )
    product_refresh(product=product, variant=variant)
    return variant


def _was_auto(variant: Variant) -> bool:
    """Whether the stored title is the one made from the product title and the old terms."""
    old_terms = [link.term for link in variant.variant_attributes.select_related("term")]
    return variant.title == _auto_title(variant.product.title, old_terms)


def variant_derive(*, variant: Variant) -> Variant:
    """Set a variant's derived prices (price, sale flag) before it is saved."""
    _derive(variant)
    return variant


@transaction.atomic
def variant_create(*, product_id: int, fields: dict, user=None) -> Variant:
    product = get_for_update(product_id)
    check_variable(product)
    return _write(Variant(product=product), fields, creating=True, user=user)


@transaction.atomic
def variant_update(*, variant_id: int, fields: dict, user=None) -> Variant:
    return _write(_variant_for_update(variant_id), fields, creating=False, user=user)


def _discard_stock(variant_ids) -> None:
    for variant_id, product_id in variant_ids:
        inventory.stock_discard(
            product_id=product_id,
            variant_id=variant_id,
            reference=inventory.Reference(type="variant", id=str(variant_id), note="Deleted"),
        )


@transaction.atomic
def variant_delete(*, variant_id: int) -> None:
    """Delete a variant; its stock is written out of the inventory ledger first."""
    variant = _variant_for_update(variant_id)
    product = variant.product
    _discard_stock([(variant.pk, product.pk)])
    variant.delete()
    product_refresh(product=product)


@transaction.atomic
def variants_delete_all(*, product_id: int) -> int:
    product = get_for_update(product_id)
    ids = list(Variant.objects.filter(product=product).values_list("pk", flat=True))
    _discard_stock([(pk, product.pk) for pk in ids])
    Variant.objects.filter(product=product).delete()
    product_refresh(product=product)
    return len(ids)


@transaction.atomic
def variants_reorder(*, product_id: int, order: list[dict]) -> list[Variant]:
    """Set sort_order of the listed variants; every id must be one of the product's."""
    product = get_for_update(product_id)
    ids = [item["id"] for item in order]
    if len(set(ids)) != len(ids):
        raise invalid_params({"order": ["Each variant id at most once."]})
    variants = {v.pk: v for v in Variant.objects.filter(product=product, pk__in=ids)}
    foreign = [i for i in ids if i not in variants]
    if foreign:
        raise invalid_params({"order": [f"Not variants of product {product.pk}: {foreign}."]})
    for item in order:
        variants[item["id"]].sort_order = item["sort_order"]
    Variant.objects.bulk_update(list(variants.values()), ["sort_order"])
    product_refresh(product=product)  # bulk_update sends no signal: refresh also invalidates
    return list(Variant.objects.filter(product=product).order_by("sort_order", "id"))
