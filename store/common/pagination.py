"""Page numbers for store collections: `page` from 1, `per_page` capped, never a 500.

Products answer `{data, meta: {page, per_page, total, total_pages}}`; other collections pick
their shape (orders: `{orders, total, page, per_page, total_pages}`) from the same Page.
A page past the end is empty, with the true total.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from rest_framework import serializers

from common.api.fields import IntegerField


@dataclass
class Page:
    items: list
    page: int
    per_page: int
    total: int

    @property
    def total_pages(self) -> int:
        return math.ceil(self.total / self.per_page) if self.per_page else 0

    def meta(self) -> dict:
        return {
            "page": self.page,
            "per_page": self.per_page,
            "total": self.total,
            "total_pages": self.total_pages,
        }


def paginate(queryset, *, page: int, per_page: int) -> Page:
    """One COUNT and one query for the rows of the page (none when the page is past the end)."""
    total = queryset.count()
    start = (page - 1) * per_page
    items = list(queryset[start : start + per_page]) if start < total else []
    return Page(items=items, page=page, per_page=per_page, total=total)


class MetaSerializer(serializers.Serializer):
    page = IntegerField()
    per_page = IntegerField()
    total = IntegerField()
    total_pages = IntegerField()
