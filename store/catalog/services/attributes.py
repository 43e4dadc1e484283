"""Attribute and term writes. An attribute or term that variants use cannot be deleted."""

from __future__ import annotations

import re

from django.db import transaction

from store.catalog.models import Attribute, AttributeTerm, VariantAttribute
from store.catalog.rules import base_slug, unique_value
from store.catalog.services.common import existing_or_new
from store.common.errors import not_found, rule_broken
from store.common.problems import Problems

_ATTRIBUTE_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


def _attribute_slug_taken(exclude_pk):
    def taken(value: str) -> bool:
        queryset = Attribute.objects.filter(slug=value)
        return (queryset.exclude(pk=exclude_pk) if exclude_pk else queryset).exists()

    return taken


def _term_slug_taken(attribute_id: int, exclude_pk):
    def taken(value: str) -> bool:
        queryset = AttributeTerm.objects.filter(attribute_id=attribute_id, slug=value)
        return (queryset.exclude(pk=exclude_pk) if exclude_pk else queryset).exists()

    return taken


def _get_attribute(attribute_id: int) -> Attribute:
    attribute = Attribute.objects.select_for_update().filter(pk=attribute_id).first()
    if attribute is None:
        raise not_found("attribute", attribute_id)
    return attribute


def _get_term(term_id: int) -> AttributeTerm:
    term = AttributeTerm.objects.select_for_update().filter(pk=term_id).first()
    if term is None:
        raise not_found("term", term_id)
    return term


def _check_attribute(attribute: Attribute, fields: dict) -> None:
    problems = Problems()
    if not fields.get("name", attribute.name):
        problems.add("name", "An attribute needs a name.")
    slug = fields.get("slug")
    if slug:
        if not _ATTRIBUTE_SLUG.match(slug):
            problems.add(
                "slug", "Lower-case letters, digits, '-' and '_' only (it names attr_{slug})."
            )
        elif _attribute_slug_taken(attribute.pk)(slug):
            problems.add("slug", f"Slug {slug!r} is already used.", code="duplicate_slug")
    problems.raise_if_any()


def attribute_check(*, fields: dict, attribute_id: int | None = None) -> None:
    """Refuse what attribute_create (without an id) or attribute_update would refuse, writing
    nothing (the admin's form)."""
    _check_attribute(existing_or_new(Attribute, attribute_id, "attribute"), fields)


def _write_attribute(attribute: Attribute, fields: dict) -> Attribute:
    _check_attribute(attribute, fields)
    slug = fields.get("slug")
    for name in ("name", "type", "sort_order"):
        if name in fields:
            setattr(attribute, name, fields[name])
    if slug:
        attribute.slug = slug
    elif not attribute.slug:
        base = (
            re.sub(r"[^a-z0-9_-]", "", base_slug(attribute.name, "attribute").lower())
            or "attribute"
        )
        attribute.slug = unique_value(base, _attribute_slug_taken(attribute.pk), limit=100)
    attribute.save()
    return attribute


@transaction.atomic
def attribute_create(*, fields: dict) -> Attribute:
    return _write_attribute(Attribute(), fields)


@transaction.atomic
def attribute_update(*, attribute_id: int, fields: dict) -> Attribute:
    return _write_attribute(_get_attribute(attribute_id), fields)


@transaction.atomic
def attribute_delete(*, attribute_id: int) -> None:
    attribute = _get_attribute(attribute_id)
    if VariantAttribute.objects.filter(attribute=attribute).exists():
        raise rule_broken(
            "Variants use this attribute; change or delete those variants first.",
            code="attribute_in_use",
            status=409,
        )
    attribute.delete()


def _check_term(term: AttributeTerm, fields: dict) -> None:
    problems = Problems()
    if not fields.get("name", term.name):
        problems.add("name", "A term needs a name.")
    if fields.get("slug") and _term_slug_taken(term.attribute_id, term.pk)(fields["slug"]):
        problems.add(
            "slug",
            f"Slug {fields['slug']!r} is already used in this attribute.",
            code="duplicate_slug",
        )
    problems.raise_if_any()


def term_check(*, fields: dict, attribute_id: int | None, term_id: int | None = None) -> None:
    """Refuse what term_create (of `attribute_id`) or term_update would refuse, writing
    nothing (the admin's forms). A new attribute's terms (`attribute_id` None) have no slugs
    to collide with yet."""
    term = existing_or_new(AttributeTerm, term_id, "term")
    if term_id is None:
        term.attribute_id = attribute_id
    _check_term(term, fields)


def _write_term(term: AttributeTerm, fields: dict) -> AttributeTerm:
    _check_term(term, fields)
    for name in ("name", "value", "sort_order"):
        if name in fields:
            setattr(term, name, fields[name])
    if fields.get("slug"):
        term.slug = fields["slug"]
    elif not term.slug:
        term.slug = unique_value(
            base_slug(term.name, "term"), _term_slug_taken(term.attribute_id, term.pk), limit=100
        )
    term.save()
    return term


@transaction.atomic
def term_create(*, attribute_id: int, fields: dict) -> AttributeTerm:
    attribute = _get_attribute(attribute_id)
    return _write_term(AttributeTerm(attribute=attribute), fields)


@transaction.atomic
def term_update(*, term_id: int, fields: dict) -> AttributeTerm:
    return _write_term(_get_term(term_id), fields)


@transaction.atomic
def term_delete(*, term_id: int) -> None:
    term = _get_term(term_id)
    if VariantAttribute.objects.filter(term=term).exists():
        raise rule_broken(
            "Variants use this term; change or delete those variants first.",
            code="term_in_use",
            status=409,
        )
    term.delete()
