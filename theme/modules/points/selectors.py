"""The loyalty points' reads: a customer's balance and entries."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet, Sum

from theme.modules.points.models import PointsEntry


def points_balance(user: Any) -> int:
    """The sum of the logged-in customer's entries (`user`: the request's account)."""
    total = PointsEntry.objects.filter(user=user).aggregate(total=Sum("points"))["total"]
    return int(total or 0)


def points_transactions(user: Any) -> QuerySet[PointsEntry]:
    """The customer's entries, newest first, with their orders (paged by the caller)."""
    return PointsEntry.objects.filter(user=user).select_related("order")
