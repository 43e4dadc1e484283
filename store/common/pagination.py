"""Page numbers for store collections: `page` from 1, `per_page` capped, never a 500.

A collection answers one of two shapes (spec: Pagination), both built here from one Page:
`data_page`, `{data, meta: {page, per_page, total, total_pages}}` (products, categories,
brands, coupons, media, reviews), and `named_page`, a named key with the counts beside it
(`{orders, total, page, per_page, total_pages}`: orders, customers, zones, the ERP's lists).
A page past the end is empty, with the true total. A list view is then three lines:

    query = validate_query(s.RoleListQuerySerializer, request.query_params)
    page = page_of(selectors.role_list(search=query.get("search")), query)
    return Response(named_page("roles", page, s.role_data))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
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


def paginate(rows, *, page: int, per_page: int) -> Page:
    """A queryset: one COUNT and one query for the rows of the page (none when the page is past
    the end). A list (rows read already) is cut the same way."""
    total = len(rows) if isinstance(rows, list) else rows.count()
    start = (page - 1) * per_page
    items = list(rows[start : start + per_page]) if start < total else []
    return Page(items=items, page=page, per_page=per_page, total=total)


def page_of(rows: QuerySet[Any] | list[Any], query: Mapping[str, Any]) -> Page:
    """`paginate` with a validated list query's `page` and `per_page` (PageField, PerPageField)."""
    return paginate(rows, page=query["page"], per_page=query["per_page"])


def named_page(
    name: str, page: Page, render: Callable[[Any], Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """`{**extra, <name>: [render(item), ...], total, page, per_page, total_pages}`; without
    `render` the items are answered as they are (rows rendered already)."""
    return {
        **extra,
        name: [render(item) for item in page.items] if render else list(page.items),
        "total": page.total,
        "page": page.page,
        "per_page": page.per_page,
        "total_pages": page.total_pages,
    }


def data_page(page: Page, render: Callable[[Any], Any]) -> dict[str, Any]:
    """`{data: [render(item), ...], meta: {page, per_page, total, total_pages}}`."""
    return {"data": [render(item) for item in page.items], "meta": page.meta()}


class MetaSerializer(serializers.Serializer):
    page = IntegerField()
    per_page = IntegerField()
    total = IntegerField()
    total_pages = IntegerField()
