"""erp.core.api.base: what the ERP apps' serializers share (the list query, the page answer's
shape, the optional text and currency fields, ISO dates)."""

from datetime import date

from rest_framework import serializers

from erp.core.api.base import (
    ListQuery,
    currency_field,
    iso_date,
    optional_text,
    page_serializer,
)


class Row(serializers.Serializer):
    id = serializers.IntegerField()


class Body(serializers.Serializer):
    note = optional_text(5)
    currency = currency_field()


def test_the_list_query_defaults_and_caps_per_page():
    default = ListQuery(data={})
    assert default.is_valid()
    assert dict(default.validated_data) == {"page": 1, "per_page": 20}
    query = ListQuery(data={"page": "2", "per_page": "500"})
    assert query.is_valid()
    assert dict(query.validated_data) == {"page": 2, "per_page": 100}
    assert not ListQuery(data={"page": "0"}).is_valid()


def test_a_page_serializer_lists_the_fields_beside_then_the_key_then_the_counts():
    shape = page_serializer("ThingPageSerializer", "things", Row, kinds=serializers.ListField())
    assert shape.__name__ == "ThingPageSerializer"
    assert list(shape().fields) == ["kinds", "things", "total", "page", "per_page", "total_pages"]


def test_optional_text_and_currency_may_be_left_out_and_are_checked_when_sent():
    empty = Body(data={})
    assert empty.is_valid()
    assert dict(empty.validated_data) == {}
    sent = Body(data={"note": "", "currency": "eur"})
    assert sent.is_valid(), sent.errors
    assert dict(sent.validated_data) == {"note": "", "currency": "EUR"}
    wrong = Body(data={"note": "too long", "currency": "ZZZ"})
    assert not wrong.is_valid()
    assert set(wrong.errors) == {"note", "currency"}


def test_iso_date():
    assert iso_date(date(2026, 3, 31)) == "2026-03-31"
    assert iso_date(None) is None
