"""What every ERP app's serializers (erp.<app>.api.serializers) build on.

- `ListQuery`: a list route's `page` and `per_page` (default 20, at most 100); an app's list
  query subclasses it and adds its filters (or declares its own `per_page`).
- `page_serializer`: the OpenAPI shape of a page answer, `{<key>: [...], total, page,
  per_page, total_pages}`; the answer itself is store.common.pagination.named_page, the
  store's own (the ERP's lists answer as the store's orders list does).
- `optional_text`, `currency_field`, `iso_date`: the fields and values the apps write alike.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from rest_framework import serializers

from common.api.fields import IntegerField
from store.common.params import CaseInsensitiveChoiceField, PageField, PerPageField, StrictCharField
from store.settings.sections import CURRENCY_CODES


class ListQuery(serializers.Serializer[Any]):
    page = PageField()
    per_page = PerPageField(cap=100, default=20, help_text="Default 20, at most 100.")


def page_serializer(
    name: str,
    key: str,
    item: type[serializers.Serializer[Any]],
    **before: serializers.Field[Any, Any, Any, Any],
) -> type[serializers.Serializer[Any]]:
    """The serializer class `name` of a page of `item`s under `key`, after the fields `before`
    (answered beside the page, e.g. the roles list's `domains`)."""
    return type(
        name,
        (serializers.Serializer,),
        {
            **before,
            key: item(many=True),
            "total": IntegerField(),
            "page": IntegerField(),
            "per_page": IntegerField(),
            "total_pages": IntegerField(),
        },
    )


def optional_text(max_length: int, **kwargs: Any) -> StrictCharField:
    """A string field that may be left out or blank."""
    kwargs.setdefault("required", False)
    kwargs.setdefault("allow_blank", True)
    return StrictCharField(max_length=max_length, **kwargs)


def currency_field(**kwargs: Any) -> CaseInsensitiveChoiceField:
    """An ISO 4217 code the store knows, in any case; optional unless told."""
    kwargs.setdefault("required", False)
    kwargs.setdefault("help_text", "ISO 4217, e.g. EUR.")
    return CaseInsensitiveChoiceField(choices=CURRENCY_CODES, **kwargs)


def iso_date(value: date | None) -> str | None:
    """A date as ISO 8601 (`2026-03-31`); None (or no date) stays None."""
    return value.isoformat() if value else None
