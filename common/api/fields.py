"""Input fields shared by the portal and the store: values that fit where they are stored.

- `IntegerField`: an integer within the range of the database column it is stored in or
  compared with (`column`, a Django field type; a 32-bit `integer` by default). Explicit
  `min_value`/`max_value` narrow the range, never widen it past the column, so no integer
  ever reaches PostgreSQL out of range ("integer out of range" is a 500) and every integer
  in the OpenAPI descriptions has its bounds.
- `IdField`: a row id (a `bigint` primary key), from 1.
- `StrictIntegerField`: a JSON integer only, not a numeric string (settings).
- `RowListSerializer`: a list of nested rows whose JSON shape is checked before its values;
  a wrong shape is refused with the code `invalid_shape` (the store answers 422 naming the
  field), and a row's required keys stay required in a partial update.
- `IdPathConverter` (`<id:name>` in URLs): a path id that fits a bigint, so a huge id matches
  no route (a JSON 404) instead of overflowing the database.
"""

from __future__ import annotations

from django.db.backends.base.operations import BaseDatabaseOperations
from rest_framework import serializers

# Django's portable column ranges (PostgreSQL's; SQLite stores 64 bits whatever the type).
COLUMN_RANGES: dict[str, tuple[int, int]] = BaseDatabaseOperations.integer_field_ranges
BIGINT_MAX = COLUMN_RANGES["BigIntegerField"][1]


class IntegerField(serializers.IntegerField):
    """An integer that fits its column; not a boolean, not a fraction."""

    def __init__(self, *, column: str = "IntegerField", **kwargs):
        low, high = COLUMN_RANGES[column]
        min_value = kwargs.pop("min_value", None)
        max_value = kwargs.pop("max_value", None)
        kwargs["min_value"] = low if min_value is None else max(min_value, low)
        kwargs["max_value"] = high if max_value is None else min(max_value, high)
        self.column = column
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool) or (isinstance(data, float) and not data.is_integer()):
            self.fail("invalid")
        return super().to_internal_value(data)


class IdField(IntegerField):
    """A row id: a bigint primary key, from 1 unless `min_value` says otherwise."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("column", "BigAutoField")
        super().__init__(**kwargs)


class StrictIntegerField(IntegerField):
    """A JSON integer only: numeric strings are refused too."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


def parse_id(text: str) -> int | None:
    """`text` as a row id (1 to the bigint maximum), or None."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > len(str(BIGINT_MAX)):
        return None
    value = int(text)
    return value if 1 <= value <= BIGINT_MAX else None


class IdPathConverter:
    """`<id:name>`: digits naming a row id that fits a bigint (else the route does not match)."""

    regex = "[0-9]+"

    def to_python(self, value: str) -> int:
        parsed = parse_id(value)
        if parsed is None:
            raise ValueError(f"{value!r} is not a row id")
        return parsed

    def to_url(self, value) -> str:
        return str(int(value))


# --- JSON shapes -----------------------------------------------------------------------------


def _type_name(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _shape_of(field) -> str:
    if isinstance(field, serializers.ListSerializer):
        return f"a list of {_shape_of(field.child)}"
    if isinstance(field, serializers.ListField):
        return f"a list of {_shape_of(field.child)}"
    if isinstance(field, serializers.Serializer):
        keys = ", ".join(
            f'"{name}": {_shape_of(child)}'
            for name, child in field.fields.items()
            if not child.read_only
        )
        return "{" + keys + "}"
    if isinstance(field, serializers.IntegerField):
        return "integer"
    if isinstance(field, serializers.BooleanField):
        return "boolean"
    if isinstance(field, serializers.CharField):
        return "string"
    return "value"


def shape_problem(field, value, where: str) -> str | None:
    """What is wrong with the JSON shape of `value` for `field` (types and keys, not values)."""
    if value is None:
        return None if field.allow_null else f"{where} may not be null."
    if isinstance(field, (serializers.ListSerializer, serializers.ListField)):
        if not isinstance(value, list):
            return f"{where} must be a list, not {_type_name(value)}."
        for index, item in enumerate(value):
            problem = shape_problem(field.child, item, f"{where}[{index}]")
            if problem:
                return problem
        return None
    if isinstance(field, serializers.Serializer):
        if not isinstance(value, dict):
            return f"{where} must be an object, not {_type_name(value)}."
        for name, child in field.fields.items():
            if child.read_only:
                continue
            if name not in value:
                if child.required:
                    return f"{where} lacks the key {name!r}."
                continue
            problem = shape_problem(child, value[name], f"{where}.{name}")
            if problem:
                return problem
        return None
    if isinstance(field, serializers.IntegerField) and (
        isinstance(value, bool) or not isinstance(value, int)
    ):
        return f"{where} must be an integer, not {_type_name(value)}."
    return None


class RowListSerializer(serializers.ListSerializer):
    """`many=True` rows whose shape is checked first (`Meta.list_serializer_class`)."""

    def to_internal_value(self, data):
        problem = shape_problem(self, data, self.field_name or "the body")
        if problem:
            raise serializers.ValidationError(
                f"{problem} Expected {_shape_of(self)}.", code="invalid_shape"
            )
        return super().to_internal_value(data)
