"""Category writes, single and in bulk (one transaction: all or nothing)."""

from __future__ import annotations

from django.db import transaction

from store.catalog.models import Category
from store.catalog.rules import base_slug, unique_value
from store.catalog.services.common import existing_or_new
from store.common.errors import not_found
from store.common.problems import Problems
from store.media.models import MediaImage

PLAIN_FIELDS = ("name", "description", "sort_order")


def _slug_taken(exclude_pk):
    def taken(value: str) -> bool:
        queryset = Category.objects.filter(slug=value)
        return (queryset.exclude(pk=exclude_pk) if exclude_pk else queryset).exists()

    return taken


def _parents_map() -> dict[int, int | None]:
    return dict(Category.objects.values_list("pk", "parent_id"))


def _creates_cycle(category_id: int, parent_id: int, parents: dict[int, int | None]) -> bool:
    seen = set()
    current: int | None = parent_id
    while current is not None and current not in seen:
        if current == category_id:
            return True
        seen.add(current)
        current = parents.get(current)
    return False


def _validate(category: Category, fields: dict, problems: Problems, prefix: str = "", parents=None):
    name = fields.get("name", category.name)
    if not name:
        problems.add(f"{prefix}name", "A category needs a name.")
    if fields.get("slug") and _slug_taken(category.pk)(fields["slug"]):
        problems.add(
            f"{prefix}slug", f"Slug {fields['slug']!r} is already used.", code="duplicate_slug"
        )
    if fields.get("parent_id") is not None:
        parents = parents if parents is not None else _parents_map()
        parent_id = fields["parent_id"]
        if parent_id not in parents:
            problems.add(f"{prefix}parent_id", f"No category with id {parent_id}.")
        elif category.pk and (
            parent_id == category.pk or _creates_cycle(category.pk, parent_id, parents)
        ):
            problems.add(
                f"{prefix}parent_id",
                "A category cannot be its own parent or the child of its descendants.",
                code="category_cycle",
            )
    if (
        fields.get("image_id") is not None
        and not MediaImage.objects.filter(pk=fields["image_id"]).exists()
    ):
        problems.add(f"{prefix}image_id", f"No image with id {fields['image_id']}.")


def _apply(category: Category, fields: dict) -> Category:
    for name in PLAIN_FIELDS:
        if name in fields:
            setattr(category, name, fields[name])
    if "parent_id" in fields:
        category.parent_id = fields["parent_id"]
    if "image_id" in fields:
        category.image_id = fields["image_id"]
    if fields.get("slug"):
        category.slug = fields["slug"]
    elif not category.slug:
        category.slug = unique_value(base_slug(category.name, "category"), _slug_taken(category.pk))
    category.save()
    return category


def _get(category_id: int, *, lock: bool = True) -> Category:
    queryset = Category.objects.select_for_update() if lock else Category.objects
    category = queryset.filter(pk=category_id).first()
    if category is None:
        raise not_found("category", category_id)
    return category


def category_check(*, fields: dict, category_id: int | None = None) -> None:
    """Refuse what category_create (without an id) or category_update would refuse, writing
    nothing (the admin's form)."""
    category = existing_or_new(Category, category_id, "category")
    problems = Problems()
    _validate(category, fields, problems)
    problems.raise_if_any()


@transaction.atomic
def category_create(*, fields: dict) -> Category:
    category = Category()
    problems = Problems()
    _validate(category, fields, problems)
    problems.raise_if_any()
    return _apply(category, fields)


@transaction.atomic
def category_update(*, category_id: int, fields: dict) -> Category:
    category = _get(category_id)
    problems = Problems()
    _validate(category, fields, problems)
    problems.raise_if_any()
    return _apply(category, fields)


@transaction.atomic
def category_delete(*, category_id: int) -> None:
    """Delete a category: its children move up to its parent; products just lose it."""
    category = _get(category_id)
    Category.objects.filter(parent=category).update(parent=category.parent_id)
    category.delete()


@transaction.atomic
def categories_bulk(*, create: list[dict], update: list[dict], delete: list[int]) -> dict:
    """Create, update and delete categories in one transaction; any problem refuses all.

    Problems are named by position, e.g. `update.2.parent_id`.
    """
    problems = Problems()
    parents = _parents_map()
    delete_ids = list(dict.fromkeys(delete))
    missing = [i for i in delete_ids if i not in parents]
    if missing:
        problems.add("delete", f"No categories with ids {missing}.")
    update_ids = [item["id"] for item in update]
    if len(set(update_ids)) != len(update_ids):
        problems.add("update", "Each category id at most once.")
    existing = {c.pk: c for c in Category.objects.select_for_update().filter(pk__in=update_ids)}
    for index, item in enumerate(update):
        category = existing.get(item["id"])
        if category is None:
            problems.add(f"update.{index}.id", f"No category with id {item['id']}.")
            continue
        if item["id"] in delete_ids:
            problems.add(f"update.{index}.id", "This category is also being deleted.")
        _validate(category, item, problems, prefix=f"update.{index}.", parents=parents)
    for index, item in enumerate(create):
        _validate(Category(), item, problems, prefix=f"create.{index}.", parents=parents)
        if item.get("parent_id") in delete_ids:
            problems.add(f"create.{index}.parent_id", "That parent is being deleted.")
    slugs = [item["slug"] for item in [*create, *update] if item.get("slug")]
    if len(set(slugs)) != len(slugs):
        problems.add(
            "create", "Two categories in this request have the same slug.", code="duplicate_slug"
        )
    problems.raise_if_any()

    updated = [_apply(existing[item["id"]], item) for item in update]
    created = [_apply(Category(), item) for item in create]
    for category_id in delete_ids:
        category_delete(category_id=category_id)
    return {"created": created, "updated": updated, "deleted": delete_ids}
