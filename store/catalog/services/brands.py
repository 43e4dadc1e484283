"""Brand writes."""

from __future__ import annotations

from django.db import transaction

from store.catalog.models import Brand
from store.catalog.rules import base_slug, unique_value
from store.catalog.services.common import existing_or_new
from store.common.errors import not_found
from store.common.problems import Problems
from store.media.models import MediaImage

PLAIN_FIELDS = ("name", "description", "website")


def _slug_taken(exclude_pk):
    def taken(value: str) -> bool:
        queryset = Brand.objects.filter(slug=value)
        return (queryset.exclude(pk=exclude_pk) if exclude_pk else queryset).exists()

    return taken


def _check(brand: Brand, fields: dict) -> None:
    problems = Problems()
    if not fields.get("name", brand.name):
        problems.add("name", "A brand needs a name.")
    if fields.get("slug") and _slug_taken(brand.pk)(fields["slug"]):
        problems.add("slug", f"Slug {fields['slug']!r} is already used.", code="duplicate_slug")
    if (
        fields.get("logo_id") is not None
        and not MediaImage.objects.filter(pk=fields["logo_id"]).exists()
    ):
        problems.add("logo_id", f"No image with id {fields['logo_id']}.")
    problems.raise_if_any()


def brand_check(*, fields: dict, brand_id: int | None = None) -> None:
    """Refuse what brand_create (without an id) or brand_update would refuse, writing nothing
    (the admin's form)."""
    _check(existing_or_new(Brand, brand_id, "brand"), fields)


def _write(brand: Brand, fields: dict) -> Brand:
    _check(brand, fields)
    for name in PLAIN_FIELDS:
        if name in fields:
            setattr(brand, name, fields[name])
    if "logo_id" in fields:
        brand.logo_id = fields["logo_id"]
    if fields.get("slug"):
        brand.slug = fields["slug"]
    elif not brand.slug:
        brand.slug = unique_value(base_slug(brand.name, "brand"), _slug_taken(brand.pk))
    brand.save()
    return brand


def _get(brand_id: int) -> Brand:
    brand = Brand.objects.select_for_update().filter(pk=brand_id).first()
    if brand is None:
        raise not_found("brand", brand_id)
    return brand


@transaction.atomic
def brand_create(*, fields: dict) -> Brand:
    return _write(Brand(), fields)


@transaction.atomic
def brand_update(*, brand_id: int, fields: dict) -> Brand:
    return _write(_get(brand_id), fields)


@transaction.atomic
def brand_delete(*, brand_id: int) -> None:
    """Delete a brand; its products keep existing without a brand."""
    _get(brand_id).delete()
