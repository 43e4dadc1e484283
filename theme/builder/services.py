"""The page builder's rules: layouts (one per page/post id) and templates, each a block tree
validated against the block types' schemas (theme.builder.blocks) before anything is saved,
and versioned: a write names the version it read, and a stale one answers 409 changing
nothing. With edit_post alone, a layout someone else first saved is refused (403); edit_posts
(or manage_options) edits every layout and the templates."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from common.errors import Conflict, Forbidden
from store.common.capabilities import EDIT_POSTS, has_capability
from store.common.errors import invalid_params
from theme.builder import blocks as block_types
from theme.builder import selectors
from theme.builder.models import Layout, LayoutStatus, LayoutTemplate

TEMPLATE_FIELDS = ("name", "description", "blocks")


def layout_clean(blocks) -> list:
    """The layout `blocks`, normalised; 400 `invalid_block` naming each bad block (its path,
    e.g. `blocks[2].children[0].settings.level`) otherwise."""
    errors = block_types.check_layout(blocks)
    if errors:
        raise invalid_params(errors, code="invalid_block")
    return block_types.normalise(blocks)


def _stale(what: str, current: int | None, sent: int) -> Conflict:
    if current is None:
        detail = f"This {what} does not exist yet: send version 0 to create it."
    else:
        detail = (
            f"This {what} changed since it was read: it is at version {current}, not {sent}. "
            "Read it again and reapply your changes."
        )
    return Conflict(detail, code="version_conflict")


def can_edit_layout(user, layout: Layout | None) -> bool:
    if layout is None or layout.author_id is None or layout.author_id == user.pk:
        return True
    return has_capability(user, EDIT_POSTS)


def layout_save(*, page_id: int, blocks, status: str, version: int, user) -> Layout:
    """Create (version 0) or replace (the version read) the layout of `page_id`."""
    cleaned = layout_clean(blocks)
    if status not in LayoutStatus.values:
        raise invalid_params({"status": ["Must be draft or published."]})
    current = selectors.layout_find(page_id)
    if not can_edit_layout(user, current):
        raise Forbidden(
            "This layout was first saved by someone else: changing it needs edit_posts.",
            code="cannot_edit_layout",
        )
    if version == 0:
        if current is not None:
            raise _stale("layout", current.version, version)
        try:
            with transaction.atomic():
                return Layout.objects.create(
                    page_id=page_id, blocks=cleaned, status=status, author=user, updated_by=user
                )
        except IntegrityError:  # saved by someone else meanwhile
            current = selectors.layout_find(page_id)
            raise _stale("layout", current.version if current else None, version) from None
    if current is None:
        raise _stale("layout", None, version)
    with transaction.atomic():
        changed = Layout.objects.filter(pk=current.pk, version=version).update(
            blocks=cleaned,
            status=status,
            version=version + 1,
            updated_by=user,
            updated_at=timezone.now(),
        )
    if not changed:  # saved or deleted meanwhile (deleted: a save without a version makes it)
        current = selectors.layout_find(page_id)
        raise _stale("layout", current.version if current else None, version)
    return selectors.layout_get(page_id)  # deleted right after: 404


def layout_delete(*, page_id: int) -> None:
    selectors.layout_get(page_id).delete()


# --- Templates ----------------------------------------------------------------------------------


def _template_fields(fields: dict) -> dict:
    out = {}
    if "name" in fields:
        name = str(fields["name"]).strip()
        if not name:
            raise invalid_params({"name": ["Give the template a name."]})
        out["name"] = name[:200]
    if "description" in fields:
        out["description"] = str(fields["description"] or "")[:2000]
    if "blocks" in fields:
        out["blocks"] = layout_clean(fields["blocks"])
    return out


def template_check(*, fields: dict, template_id: int | None = None) -> dict:
    cleaned = _template_fields(fields)
    if template_id is None and "name" not in cleaned:
        raise invalid_params({"name": ["Give the template a name."]})
    return cleaned


@transaction.atomic
def template_create(*, fields: dict, user=None) -> LayoutTemplate:
    cleaned = template_check(fields=fields)
    return LayoutTemplate.objects.create(**cleaned, author=user)


def template_update(
    *, template_id: int, fields: dict, version: int | None = None
) -> LayoutTemplate:
    """Change the fields given; `version` (the one read), when given, must be current."""
    template = selectors.template_get(template_id)
    cleaned = template_check(fields=fields, template_id=template_id)
    if version is not None and version != template.version:
        raise _stale("template", template.version, version)
    if not cleaned:  # nothing to change: no new version
        return template
    with transaction.atomic():
        expected = template.version if version is None else version
        changed = LayoutTemplate.objects.filter(pk=template.pk, version=expected).update(
            **cleaned, version=expected + 1, updated_at=timezone.now()
        )
    # Read again: deleted meanwhile, it is a 404, not a stale version.
    current = selectors.template_get(template.pk)
    if not changed:
        raise _stale("template", current.version, expected)
    return current


def template_delete(*, template_id: int) -> None:
    selectors.template_get(template_id).delete()
