"""Product writes: create, update, delete, duplicate, and the derived fields."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from store.catalog import events as catalog_events
from store.catalog.cache import PRICE, invalidate
from store.catalog.choices import ProductStatus, ProductType
from store.catalog.models import (
    Attribute,
    AttributeTerm,
    Brand,
    Category,
    Product,
    ProductImage,
    Variant,
    VariantAttribute,
)
from store.catalog.rules import base_slug, derive_price, unique_value
from store.catalog.services.common import check_identifiers, check_sale_price, existing_or_new
from store.catalog.services.stock import stock_initial, stock_refresh, stock_write
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.problems import Problems
from store.inventory import services as inventory
from store.media.models import MediaImage

# Fields copied as they are from the validated input.
PLAIN_FIELDS = (
    "title",
    "type",
    "status",
    "sku",
    "ean",
    "mpn",
    "product_condition",
    "short_description",
    "description",
    "regular_price",
    "sale_price",
    "track_inventory",
    "allow_backorders",
    "low_stock_threshold",
    "weight",
    "length",
    "width",
    "height",
)


def get_for_update(product_id: int) -> Product:
    product = Product.objects.select_for_update().filter(pk=product_id).first()
    if product is None:
        raise not_found("product", product_id)
    return product


def _slug_taken(exclude_pk: int | None):
    def taken(value: str) -> bool:
        queryset = Product.objects.filter(slug=value)
        if exclude_pk:
            queryset = queryset.exclude(pk=exclude_pk)
        return queryset.exists()

    return taken


def _resolve(fields: dict, problems: Problems) -> dict:
    """Look up every referenced row; unknown ids are named, nothing is written."""
    resolved: dict = {}
    if "brand" in fields:
        ref = fields["brand"]
        if ref is None:
            resolved["brand"] = None
        else:
            brand = (
                Brand.objects.filter(pk=ref).first()
                if isinstance(ref, int)
                else Brand.objects.filter(slug=ref).first()
            )
            if brand is None:
                problems.add("brand", f"No brand {ref!r}.")
            resolved["brand"] = brand
    if "category_ids" in fields:
        ids = list(dict.fromkeys(fields["category_ids"]))
        found = {c.pk: c for c in Category.objects.filter(pk__in=ids)}
        missing = [i for i in ids if i not in found]
        if missing:
            problems.add("category_ids", f"No categories with ids {missing}.")
        resolved["categories"] = [found[i] for i in ids if i in found]
    image_ids = []
    if fields.get("featured_image_id") is not None:
        image_ids.append(fields["featured_image_id"])
    gallery_ids = list(dict.fromkeys(fields.get("gallery_image_ids") or []))
    images = (
        {i.pk: i for i in MediaImage.objects.filter(pk__in=[*image_ids, *gallery_ids])}
        if (image_ids or gallery_ids)
        else {}
    )
    if "featured_image_id" in fields:
        ref = fields["featured_image_id"]
        if ref is not None and ref not in images:
            problems.add("featured_image_id", f"No image with id {ref}.")
        resolved["featured_image"] = images.get(ref) if ref is not None else None
    if "gallery_image_ids" in fields:
        missing = [i for i in gallery_ids if i not in images]
        if missing:
            problems.add("gallery_image_ids", f"No images with ids {missing}.")
        resolved["gallery"] = [images[i] for i in gallery_ids if i in images]
    if "attributes" in fields:
        resolved["terms"] = _resolve_attribute_terms(fields["attributes"], problems)
    return resolved


def _resolve_attribute_terms(items: list[dict], problems: Problems) -> list[AttributeTerm]:
    attribute_ids = [item["attribute_id"] for item in items]
    attributes = {a.pk: a for a in Attribute.objects.filter(pk__in=attribute_ids)}
    term_ids = [term_id for item in items for term_id in item.get("term_ids", [])]
    terms = {t.pk: t for t in AttributeTerm.objects.filter(pk__in=term_ids)}
    out: list[AttributeTerm] = []
    for index, item in enumerate(items):
        attribute = attributes.get(item["attribute_id"])
        if attribute is None:
            problems.add(
                f"attributes.{index}.attribute_id", f"No attribute with id {item['attribute_id']}."
            )
            continue
        for term_id in item.get("term_ids", []):
            term = terms.get(term_id)
            if term is None or term.attribute_id != attribute.pk:
                problems.add(
                    f"attributes.{index}.term_ids",
                    f"Term {term_id} is not a term of attribute {attribute.slug!r}.",
                )
            else:
                out.append(term)
    return list(dict.fromkeys(out))


def _check_rules(product: Product, fields: dict, problems: Problems, *, creating: bool) -> None:
    check_sale_price(problems, fields, product)
    track = fields.get("track_inventory", product.track_inventory)
    if "stock_status" in fields and track:
        problems.add(
            "stock_status",
            "The stock status follows stock_quantity while track_inventory is on; "
            "set stock_status only for products without tracked inventory.",
        )
    if (
        not creating
        and fields.get("type") == ProductType.SIMPLE
        and product.type == ProductType.VARIABLE
        and product.variants.exists()
    ):
        problems.add(
            "type",
            "This product has variants: delete them before making it a simple product.",
            code="product_has_variants",
        )
    if fields.get("slug") and _slug_taken(product.pk)(fields["slug"]):
        problems.add("slug", f"Slug {fields['slug']!r} is already used.", code="duplicate_slug")


def _normalise(fields: dict, *, creating: bool) -> dict:
    """`price` is the regular price when regular_price is not sent; stock_quantity alone
    turns inventory tracking on when creating."""
    fields = dict(fields)
    if "price" in fields:
        price = fields.pop("price")
        fields.setdefault("regular_price", price)
    if creating and "stock_quantity" in fields and "track_inventory" not in fields:
        fields["track_inventory"] = True
    return fields


def _apply(product: Product, fields: dict, resolved: dict) -> None:
    for name in PLAIN_FIELDS:
        if name in fields:
            setattr(product, name, fields[name])
    if "brand" in resolved:
        product.brand = resolved["brand"]
    if "featured_image" in resolved:
        product.featured_image = resolved["featured_image"]
    if fields.get("slug"):
        product.slug = fields["slug"]


def _save_relations(product: Product, resolved: dict) -> None:
    if "categories" in resolved:
        product.categories.set(resolved["categories"])
    if "terms" in resolved:
        # Variants' terms stay on the product: a variant's combination is always filterable.
        variant_terms = set(
            VariantAttribute.objects.filter(variant__product=product).values_list(
                "term_id", flat=True
            )
        )
        product.attribute_terms.set(
            [*resolved["terms"], *AttributeTerm.objects.filter(pk__in=variant_terms)]
        )
    if "gallery" in resolved:
        ProductImage.objects.filter(product=product).delete()
        ProductImage.objects.bulk_create(
            ProductImage(product=product, image=image, sort_order=index)
            for index, image in enumerate(resolved["gallery"])
        )


def _save(product: Product, *, slug_generated: bool = False) -> None:
    """Save; a concurrent write that took the SKU, EAN or slug since the checks is reported
    like the checks report it (a generated slug is simply made again)."""
    for _attempt in range(3):
        try:
            with transaction.atomic():
                product.save()
            return
        except IntegrityError:
            others = Product.objects.exclude(pk=product.pk) if product.pk else Product.objects
            if product.sku and others.filter(sku=product.sku).exists():
                raise invalid_params(
                    {"sku": [f"SKU {product.sku!r} is already used by another product."]},
                    code="duplicate_sku",
                ) from None
            if product.ean and others.filter(ean=product.ean).exists():
                raise invalid_params(
                    {"ean": [f"Barcode {product.ean} is already used by another product."]},
                    code="duplicate_barcode",
                ) from None
            if not (slug_generated and others.filter(slug=product.slug).exists()):
                if others.filter(slug=product.slug).exists():
                    raise invalid_params(
                        {"slug": [f"Slug {product.slug!r} is already used."]},
                        code="duplicate_slug",
                    ) from None
                raise
            product.slug = unique_value(base_slug(product.title, "product"), _slug_taken(None))
    raise invalid_params({"slug": ["Could not find a free slug; send one."]}, code="duplicate_slug")


def _derive_simple(product: Product) -> None:
    product.price, product.on_sale = derive_price(product.regular_price, product.sale_price)
    product.min_price = product.max_price = product.price


def _derive(product: Product) -> None:
    """Set the derived prices from the product and, for variable products, its variants.

    The stock fields are the inventory's (store.catalog.services.stock)."""
    _derive_simple(product)
    if product.type != ProductType.VARIABLE or not product.pk:
        return
    variants = list(
        Variant.objects.filter(product=product, enabled=True).values_list("price", "on_sale")
    )
    if not variants:
        return
    prices = [row[0] for row in variants if row[0] is not None]
    if prices:
        product.min_price, product.max_price = min(prices), max(prices)
        product.price = product.min_price
    else:
        product.min_price = product.max_price = product.price = None
    product.on_sale = any(row[1] for row in variants)


def product_refresh(*, product: Product, variant: Variant | None = None) -> Product:
    """Recompute and store the derived fields (prices, sale flag; the stock fields through
    the inventory, of `variant` too when given)."""
    _derive(product)
    Product.objects.filter(pk=product.pk).update(
        price=product.price,
        min_price=product.min_price,
        max_price=product.max_price,
        on_sale=product.on_sale,
    )
    invalidate([product.pk], [PRICE])
    stock_refresh(product=product, variant=variant)
    return product


def _validated(product: Product, fields: dict, *, creating: bool) -> tuple[dict, dict]:
    """The fields normalised and their rows looked up; every problem refuses (400)."""
    fields = _normalise(fields, creating=creating)
    problems = Problems()
    resolved = _resolve(fields, problems)
    _check_rules(product, fields, problems, creating=creating)
    check_identifiers(
        problems,
        sku=fields.get("sku"),
        barcode=fields.get("ean"),
        barcode_param="ean",
        product_id=product.pk,
    )
    problems.raise_if_any()
    return fields, resolved


def product_check(*, fields: dict, product_id: int | None = None) -> None:
    """Refuse what product_create (without an id) or product_update would refuse, writing
    nothing (the admin's form checks with it before it saves through them)."""
    product = existing_or_new(Product, product_id, "product")
    _validated(product, fields, creating=product_id is None)


@transaction.atomic
def product_create(*, fields: dict, user=None) -> Product:
    product = Product()
    fields, resolved = _validated(product, fields, creating=True)
    _apply(product, fields, resolved)
    generated = not fields.get("slug")
    if generated:
        product.slug = unique_value(base_slug(product.title, "product"), _slug_taken(None))
    _derive(product)
    counted = fields.get("stock_quantity") is not None
    if not counted:  # nothing to put in stock: the fields follow from the product alone
        stock_initial(product, fields.get("stock_status"))
    _save(product, slug_generated=generated)
    _save_relations(product, resolved)
    if counted:
        _write_stock(product, fields, user=user)
    catalog_events.product_created(product)
    return product


def _write_stock(product: Product, fields: dict, *, user=None) -> None:
    stock_write(
        product=product,
        quantity=fields.get("stock_quantity"),
        manual_status=fields.get("stock_status"),
        user=user,
    )
    stock_refresh(product=product)


@transaction.atomic
def product_update(*, product_id: int, fields: dict, user=None) -> Product:
    product = get_for_update(product_id)
    sent = list(fields)
    fields, resolved = _validated(product, fields, creating=False)
    _apply(product, fields, resolved)
    _derive(product)
    _save(product)
    _save_relations(product, resolved)
    _write_stock(product, fields, user=user)
    catalog_events.product_updated(product, changed=sent)
    return product


@transaction.atomic
def product_delete(*, product_id: int) -> None:
    """Delete a product with its variants, gallery entries and reviews; its stock is written
    out of the inventory ledger first."""
    product = get_for_update(product_id)
    inventory.stock_discard(
        product_id=product.pk,
        reference=inventory.Reference(type="product", id=str(product.pk), note="Deleted"),
    )
    catalog_events.product_deleted(product)
    product.delete()


def _sku_in_use(value: str) -> bool:
    return Product.objects.filter(sku=value).exists() or Variant.objects.filter(sku=value).exists()


def _copy_sku(sku: str) -> str:
    return unique_value(f"{sku}-copy"[:59], _sku_in_use, limit=64) if sku else ""


@transaction.atomic
def product_duplicate(*, product_id: int) -> Product:
    """A draft copy: fields, categories, images, attributes and variants; unique SKU and slug.

    Barcodes are not copied (a barcode names one item); ratings and sales start at zero;
    stock is not copied either (a copy holds no units until some are set).
    """
    source = get_for_update(product_id)
    categories = list(source.categories.all())
    terms = list(source.attribute_terms.all())
    gallery = list(source.gallery_items.all())
    variants = list(source.variants.prefetch_related("variant_attributes"))

    copy = source
    copy.pk = copy.id = None
    copy.title = f"{source.title} (copy)"[:255]
    copy.slug = unique_value(f"{source.slug}-copy"[:240], _slug_taken(None))
    copy.status = ProductStatus.DRAFT
    copy.sku = _copy_sku(source.sku)
    copy.ean = ""
    copy.average_rating = 0
    copy.review_count = 0
    copy.total_sales = 0
    copy.stock_quantity = 0
    copy.created_at = timezone.now()
    _save(copy, slug_generated=True)
    copy.categories.set(categories)
    copy.attribute_terms.set(terms)
    ProductImage.objects.bulk_create(
        ProductImage(product=copy, image_id=item.image_id, sort_order=item.sort_order)
        for item in gallery
    )
    for variant in variants:
        links = list(variant.variant_attributes.all())
        variant.pk = variant.id = None
        variant.product = copy
        variant.sku = _copy_sku(variant.sku)
        variant.barcode = ""
        variant.stock_quantity = 0
        variant.created_at = timezone.now()
        variant.save()
        VariantAttribute.objects.bulk_create(
            VariantAttribute(variant=variant, attribute_id=link.attribute_id, term_id=link.term_id)
            for link in links
        )
    stock_refresh(product=copy)
    catalog_events.product_created(copy)
    return copy


def next_sort_order(queryset) -> int:
    top = queryset.aggregate(top=Max("sort_order"))["top"]
    return 0 if top is None else top + 1


def ensure_product_terms(*, product: Product, terms) -> None:
    """A variant's terms are also the product's (so attribute filters find the product)."""
    product.attribute_terms.add(*terms)


def check_variable(product: Product) -> None:
    if product.type != ProductType.VARIABLE:
        raise rule_broken(
            "Only variable products have variants; set type to variable first.",
            code="not_variable_product",
        )
