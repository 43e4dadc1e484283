"""The promotion rules' writes (the admin's): each write bumps the cached rules."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from store.common.errors import invalid_params
from theme.modules.promotions import selectors
from theme.modules.promotions.models import Promotion

PROMOTION_FIELDS = (
    "name",
    "description",
    "kind",
    "value",
    "min_subtotal",
    "active",
    "starts_at",
    "ends_at",
    "priority",
)


def _promotions_changed() -> None:
    selectors.PROMOTIONS.bump()


def promotion_check(*, fields: dict[str, Any], promotion: Promotion | None = None) -> None:
    def value(name: str) -> Any:
        return fields[name] if name in fields else getattr(promotion, name, None)

    starts, ends = value("starts_at"), value("ends_at")
    if starts and ends and ends <= starts:
        raise invalid_params({"ends_at": ["The end must come after the start."]})
    amount = value("value")
    if value("kind") == "percent" and amount is not None and amount > 100:
        raise invalid_params({"value": ["A percentage is at most 100."]})


@transaction.atomic
def promotion_save(*, fields: dict[str, Any], promotion: Promotion | None = None) -> Promotion:
    promotion_check(fields=fields, promotion=promotion)
    promotion = promotion or Promotion()
    for name, value in fields.items():
        setattr(promotion, name, value)
    promotion.full_clean()
    promotion.save()
    _promotions_changed()
    return promotion


@transaction.atomic
def promotion_delete(*, promotion: Promotion) -> None:
    promotion.delete()
    _promotions_changed()
