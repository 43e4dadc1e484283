"""The cart add's plain-body shortcut (serializers.plain_add_body) answers what the serializer
answers, and leaves every other body to it."""

import pytest

from common.api.fields import BIGINT_MAX
from store.cart.api import serializers as s

PLAIN = [
    {"product_id": 7},
    {"product_id": 7, "quantity": 3},
    {"product_id": 7, "quantity": 0},
    {"product_id": 7, "quantity": -5},
    {"product_id": 7, "quantity": None},
    {"product_id": 7, "variant_id": 9, "quantity": 1_000_000},
    {"product_id": 7, "variant_id": None},
    {"product_id": 2**31 - 1},
]
NOT_PLAIN = [
    {},
    [],
    "product_id",
    {"product_id": None},
    {"product_id": 0},
    {"product_id": -1},
    {"product_id": True},
    {"product_id": 7.0},
    {"product_id": "7"},
    {"product_id": 2**31},
    {"product_id": BIGINT_MAX + 1},
    {"product_id": 7, "quantity": 1_000_001},
    {"product_id": 7, "quantity": -(2**31) - 1},
    {"product_id": 7, "quantity": False},
    {"product_id": 7, "variant_id": 0},
    {"product_id": 7, "options": {"engraving": "A"}},
    {"product_id": 7, "cart_id": "abc"},
    {"product_id": 7, "extra": 1},
    {"quantity": 2},
]


@pytest.mark.parametrize("body", PLAIN, ids=str)
def test_a_plain_body_is_answered_as_the_serializer_answers_it(body):
    serializer = s.CartItemAddSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    assert s.plain_add_body(body) == dict(serializer.validated_data)


@pytest.mark.parametrize("body", NOT_PLAIN, ids=str)
def test_any_other_body_is_left_to_the_serializer(body):
    assert s.plain_add_body(body) is None
