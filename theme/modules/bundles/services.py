"""The bundles' writes (the admin's): a bundle and its products, checked first and changed in
one transaction."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from store.common.errors import invalid_params, rule_broken
from theme.modules import selectors as kernel
from theme.modules.bundles.models import Bundle, BundleItem

BUNDLE_FIELDS = ("title", "slug", "description", "active", "discount_percent")


def bundle_check(*, fields: dict[str, Any], bundle_id: int | None = None) -> None:
    slug = fields.get("slug")
    clash = Bundle.objects.filter(slug=slug)
    if bundle_id is not None:
        clash = clash.exclude(pk=bundle_id)
    if slug is not None and clash.exists():
        raise rule_broken("A bundle with this slug exists.", code="bundle_exists", status=409)
    percent = fields.get("discount_percent")
    if percent is not None and not (0 <= percent <= 100):
        raise invalid_params({"discount_percent": ["Between 0 and 100."]})


@transaction.atomic
def bundle_save(
    *,
    fields: dict[str, Any],
    items: list[dict[str, Any]] | None = None,
    bundle: Bundle | None = None,
) -> Bundle:
    """Create or change a bundle; `items` ({product_id, quantity}), when given, replaces its
    products, all at once."""
    if items is not None:
        if not items:
            raise invalid_params({"items": ["A bundle needs at least one product."]})
        kernel.active_products(item["product_id"] for item in items)
    bundle_check(fields=fields, bundle_id=bundle.pk if bundle else None)
    bundle = bundle or Bundle()
    for name, value in fields.items():
        setattr(bundle, name, value)
    bundle.full_clean()
    bundle.save()
    if items is not None:
        BundleItem.objects.filter(bundle=bundle).delete()
        BundleItem.objects.bulk_create(
            BundleItem(
                bundle=bundle, product_id=item["product_id"], quantity=item.get("quantity", 1)
            )
            for item in items
        )
    return bundle


def bundle_delete(*, bundle: Bundle) -> None:
    bundle.delete()


def bundle_item_check(*, fields: dict[str, Any], item_id: int | None = None) -> None:
    if "product_id" in fields:
        kernel.active_products([fields["product_id"]])
    bundle_id, product_id = fields.get("bundle_id"), fields.get("product_id")
    if bundle_id and product_id:
        clash = BundleItem.objects.filter(bundle_id=bundle_id, product_id=product_id)
        if item_id is not None:
            clash = clash.exclude(pk=item_id)
        if clash.exists():
            raise rule_broken("This product is in the bundle.", code="bundle_item_exists")


@transaction.atomic
def bundle_item_save(*, fields: dict[str, Any], item: BundleItem | None = None) -> BundleItem:
    bundle_item_check(fields=fields, item_id=item.pk if item else None)
    item = item or BundleItem()
    for name, value in fields.items():
        setattr(item, name, value)
    item.save()
    return item


def bundle_item_delete(*, item: BundleItem) -> None:
    item.delete()
