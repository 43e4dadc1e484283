"""The customer groups' writes: a group and its members (an account in at most one group),
checked first and changed in one transaction; each write bumps the cached discounts."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from store.common.errors import invalid_params, not_found, rule_broken
from theme.modules.b2b import selectors
from theme.modules.b2b.models import CustomerGroup, CustomerGroupMember

GROUP_FIELDS = ("name", "description", "discount_percent")


def _groups_changed() -> None:
    selectors.GROUPS.bump()


def group_check(*, fields: dict[str, Any], group_id: int | None = None) -> None:
    name = fields.get("name")
    if name is not None:
        clash = CustomerGroup.objects.filter(name__iexact=name)
        if group_id is not None:
            clash = clash.exclude(pk=group_id)
        if clash.exists():
            raise rule_broken(
                "A group with this name exists.", code="customer_group_exists", status=409
            )


def _group(group_id: int, *, lock: bool = False) -> CustomerGroup:
    rows = CustomerGroup.objects.select_for_update() if lock else CustomerGroup.objects
    group = rows.filter(pk=group_id).first()
    if group is None:
        raise not_found("customer_group", group_id)
    return group


def group_get(*, group_id: int) -> CustomerGroup:
    return _group(group_id)


def _members(user_ids: list[int]) -> list[int]:
    found = set(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", flat=True))
    missing = sorted(set(user_ids) - found)
    if missing:
        raise invalid_params({"member_ids": [f"No account with id {missing[0]}."]})
    return sorted(found)


@transaction.atomic
def group_save(
    *, fields: dict[str, Any], member_ids: list[int] | None = None, group_id: int | None = None
) -> CustomerGroup:
    """Create or change a group; `member_ids` (when given) replaces its members, moving each
    account out of any other group (an account is in at most one)."""
    group = _group(group_id, lock=True) if group_id is not None else CustomerGroup()
    group_check(fields=fields, group_id=group.pk)
    members = _members(member_ids) if member_ids is not None else None
    for key, value in fields.items():
        setattr(group, key, value)
    group.save()
    if members is not None:
        CustomerGroupMember.objects.filter(group=group).exclude(user_id__in=members).delete()
        CustomerGroupMember.objects.filter(user_id__in=members).exclude(group=group).delete()
        have = set(
            CustomerGroupMember.objects.filter(group=group).values_list("user_id", flat=True)
        )
        CustomerGroupMember.objects.bulk_create(
            CustomerGroupMember(group=group, user_id=pk) for pk in members if pk not in have
        )
    _groups_changed()
    return group


@transaction.atomic
def group_delete(*, group_id: int) -> None:
    _group(group_id, lock=True).delete()
    _groups_changed()
