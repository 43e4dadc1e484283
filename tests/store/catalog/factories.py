from decimal import Decimal

import factory

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
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services


class CategoryFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Category

    name = factory.Sequence(lambda n: f"Category {n}")
    slug = factory.Sequence(lambda n: f"category-{n}")


class BrandFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Brand

    name = factory.Sequence(lambda n: f"Brand {n}")
    slug = factory.Sequence(lambda n: f"brand-{n}")


class AttributeFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Attribute

    name = factory.Sequence(lambda n: f"Attribute {n}")
    slug = factory.Sequence(lambda n: f"attribute-{n}")


class TermFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AttributeTerm

    attribute = factory.SubFactory(AttributeFactory)
    name = factory.Sequence(lambda n: f"Term {n}")
    slug = factory.Sequence(lambda n: f"term-{n}")


def make_product(**fields) -> Product:
    """A product through the create service (derived fields right), active by default."""
    fields.setdefault("title", "Product")
    fields.setdefault("status", "active")
    fields.setdefault("regular_price", Decimal("10.00"))
    for key in ("regular_price", "sale_price", "price"):
        if isinstance(fields.get(key), (int, float, str)):
            fields[key] = Decimal(str(fields[key]))
    return product_services.product_create(fields=fields)


def make_variant(product: Product, *terms: AttributeTerm, **fields) -> Variant:
    fields["attributes"] = [{"attribute_id": t.attribute_id, "term_id": t.pk} for t in terms]
    for key in ("regular_price", "sale_price", "price"):
        if isinstance(fields.get(key), (int, float, str)):
            fields[key] = Decimal(str(fields[key]))
    return variant_services.variant_create(product_id=product.pk, fields=fields)


def add_gallery(product: Product, *images) -> None:
    ProductImage.objects.bulk_create(
        ProductImage(product=product, image=image, sort_order=i) for i, image in enumerate(images)
    )


__all__ = [
    "AttributeFactory",
    "BrandFactory",
    "CategoryFactory",
    "TermFactory",
    "VariantAttribute",
    "add_gallery",
    "make_product",
    "make_variant",
]
