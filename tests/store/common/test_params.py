"""validate_query remembers the validated query of a `pure_query` serializer (its answer
depends on the parameters alone), so a list asked the same way again skips the serializer;
refusals are never remembered, callers get their own copy, and other serializers are
validated every time."""

import pytest
from django.http import QueryDict
from rest_framework import serializers

from store.common.errors import ServiceError
from store.common.params import (
    ChoiceListField,
    PerPageField,
    _query_fields,
    validate_body,
    validate_query,
)
from store.orders.api.serializers import OrderListQuerySerializer

built: list[str] = []


class _Counting(serializers.Serializer):
    per_page = PerPageField(cap=50, default=10)
    status = ChoiceListField(choices=["a", "b"])
    tags = serializers.ListField(child=serializers.CharField(), required=False)

    def __init__(self, *args, **kwargs):
        built.append(type(self).__name__)
        super().__init__(*args, **kwargs)


class PureQuery(_Counting):
    pure_query = True


class PlainQuery(_Counting):
    pass


@pytest.fixture(autouse=True)
def _fresh():
    _query_fields(PureQuery), _query_fields(PlainQuery)  # their parameters, asked once
    built.clear()


def test_a_pure_query_is_validated_once_per_distinct_query():
    first = validate_query(PureQuery, QueryDict("per_page=500&status=a,b&tags=x&tags=y"))
    assert first == {"per_page": 50, "status": ["a", "b"], "tags": ["x", "y"]}
    again = validate_query(PureQuery, QueryDict("tags=x&tags=y&status=a,b&per_page=500"))
    assert again == first
    assert built == ["PureQuery"]  # the second one (same parameters) built no serializer
    validate_query(PureQuery, QueryDict("per_page=5"))
    assert built == ["PureQuery", "PureQuery"]


def test_callers_get_their_own_copy():
    first = validate_query(PureQuery, QueryDict("status=a&tags=x"))
    first["status"].append("mutated")
    first["tags"].clear()
    first["extra"] = 1
    assert validate_query(PureQuery, QueryDict("status=a&tags=x")) == {
        "per_page": 10,
        "status": ["a"],
        "tags": ["x"],
    }


def test_a_refusal_is_raised_every_time():
    for _ in range(2):
        with pytest.raises(ServiceError) as refused:
            validate_query(PureQuery, QueryDict("per_page=0&status=c"))
        assert set(refused.value.errors) == {"per_page", "status"}
    assert built == ["PureQuery", "PureQuery"]


def test_other_serializers_and_calls_with_context_are_validated_every_time():
    for _ in range(2):
        validate_query(PlainQuery, QueryDict("status=a"))
        validate_query(PureQuery, QueryDict("status=b"), request=None)
    assert built == ["PlainQuery", "PureQuery", "PlainQuery", "PureQuery"]


def test_the_order_list_query_is_pure_and_still_refuses():
    assert OrderListQuerySerializer.pure_query is True
    query = validate_query(OrderListQuerySerializer, QueryDict("per_page=1000&orderby=TOTAL"))
    assert (query["per_page"], query["orderby"], query["order"]) == (100, "total", "DESC")
    with pytest.raises(ServiceError) as refused:
        validate_query(
            OrderListQuerySerializer, QueryDict("date_from=2026-02-01&date_to=2026-01-01")
        )
    assert "date_to" in refused.value.errors


class _Body(serializers.Serializer):
    name = serializers.CharField()
    note = serializers.CharField(required=False)


def test_a_body_refuses_keys_it_does_not_take_with_the_other_problems():
    assert validate_body(_Body, {"name": "a"}) == {"name": "a"}
    with pytest.raises(ServiceError) as refused:
        validate_body(_Body, {"name": "a", "nmae": "b"})
    assert set(refused.value.errors) == {"nmae"}
    assert "its fields: name, note" in refused.value.errors["nmae"][0]
    with pytest.raises(ServiceError) as both:
        validate_body(_Body, {"nmae": "b"})
    assert set(both.value.errors) == {"name", "nmae"}  # named together, in one answer


def test_a_payload_others_write_may_carry_keys_that_are_not_read():
    body = validate_body(_Body, {"name": "a", "extra": 1}, allow_unknown_keys=True)
    assert body == {"name": "a"}
