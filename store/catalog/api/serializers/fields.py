from __future__ import annotations

from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from common.api.fields import BIGINT_MAX, IdField, IntegerField


def iso(value) -> str | None:
    return None if value is None else serializers.DateTimeField().to_representation(value)


def decimal_str(value) -> str | None:
    return None if value is None else format(value, "f")


class NumberField(serializers.DecimalField):
    """A non-negative number (JSON number or decimal string), e.g. a weight or a dimension."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", 10)
        kwargs.setdefault("decimal_places", 3)
        kwargs.setdefault("min_value", Decimal(0))
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, float):
            data = repr(data)
        return super().to_internal_value(data)


class StrictIntField(IntegerField):
    """An integer, not a boolean and not a float with a fraction, within its column's range
    (common.api.fields.IntegerField)."""


class IdListField(serializers.ListField):
    def __init__(self, **kwargs):
        kwargs.setdefault("child", IdField())
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 500)
        super().__init__(**kwargs)


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer", "minimum": 1, "maximum": BIGINT_MAX},
            {"type": "string"},
        ],
        "nullable": True,
    }
)
class BrandRefField(serializers.Field):
    """A brand's id, or its slug; null for none."""

    default_error_messages = {"invalid": "Give a brand id (integer) or a brand slug."}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int) and 0 < data <= BIGINT_MAX:
            return data
        if isinstance(data, str) and data.strip():
            text = data.strip()
            if text.isdigit():
                if len(text) > len(str(BIGINT_MAX)) or int(text) > BIGINT_MAX:
                    self.fail("invalid")
                return int(text)
            return text
        self.fail("invalid")

    def to_representation(self, value):
        return value
