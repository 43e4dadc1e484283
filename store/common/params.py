"""Query parameters and bodies of store requests: validated, 400 naming each bad one.

Query parameters are declared as DRF serializers (so the OpenAPI description lists them) and
read with `validate_query`; bodies with `validate_body`. Invalid values answer 400
`invalid_param` in the store's error style, with `data.params` naming each parameter.
"""

from __future__ import annotations

import functools

from rest_framework import serializers

from common.api import fields
from store.common.errors import SHAPE_CODE, invalid_params, invalid_shape


def _errors(serializer) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}

    def walk(detail, prefix: str = "") -> None:
        if isinstance(detail, dict):
            for key, value in detail.items():
                walk(value, f"{prefix}.{key}" if prefix else str(key))
        elif isinstance(detail, list) and detail and isinstance(detail[0], (dict, list)):
            for index, value in enumerate(detail):
                if value:
                    walk(value, f"{prefix}.{index}" if prefix else str(index))
        elif isinstance(detail, list):
            out.setdefault(prefix or "body", []).extend(str(item) for item in detail)
        else:
            out.setdefault(prefix or "body", []).append(str(detail))

    walk(serializer.errors)
    return out


@functools.cache
def _query_fields(serializer_class) -> tuple[tuple[str, bool], ...]:
    """A query serializer's parameters and whether each takes several values (asked once per
    class: a serializer's fields are deep-copied each time one is made)."""
    return tuple(
        (name, isinstance(field, serializers.ListField))
        for name, field in serializer_class().fields.items()
    )


def _validated(serializer_class, data: dict, context: dict) -> dict:
    serializer = serializer_class(data=data, context=context)
    if not serializer.is_valid():
        raise invalid_params(_errors(serializer))
    return serializer.validated_data


# How many validated queries of `pure_query` serializers one process remembers.
PURE_QUERIES_KEPT = 512


@functools.lru_cache(maxsize=PURE_QUERIES_KEPT)
def _validated_pure(serializer_class, key: tuple) -> dict:
    data = {name: list(value) if isinstance(value, tuple) else value for name, value in key}
    return dict(_validated(serializer_class, data, {}))


def validate_query(serializer_class, query_params, **context) -> dict:
    """The validated query parameters (only the declared ones; others are ignored).

    A serializer that declares `pure_query = True` (its answer depends on the parameters
    alone: no database, no clock, no settings read at validation, no context) is validated
    once per distinct query and remembered (PURE_QUERIES_KEPT per process, least recently
    used out): a busy list asked the same way again skips building and running the
    serializer. Refusals are not remembered (each raises anew)."""
    data = {}
    for name, many in _query_fields(serializer_class):
        if name in query_params:
            data[name] = query_params.getlist(name) if many else query_params.get(name)
    if getattr(serializer_class, "pure_query", False) and not context:
        key = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items()))
        remembered = _validated_pure(serializer_class, key)
        # a copy: callers may change what they are given
        return {k: list(v) if isinstance(v, list) else v for k, v in remembered.items()}
    return _validated(serializer_class, data, context)


def _has_code(detail, code: str) -> bool:
    if isinstance(detail, dict):
        return any(_has_code(value, code) for value in detail.values())
    if isinstance(detail, list):
        return any(_has_code(value, code) for value in detail)
    return getattr(detail, "code", None) == code


def unknown_keys(serializer, data) -> list[str]:
    """The keys of a body that are none of its serializer's fields (nor their other names,
    AliasedSerializer's `aliases`): a misspelt key must not be taken for "nothing to change"."""
    if not isinstance(data, dict):
        return []
    known = set(serializer.fields) | set(getattr(serializer, "aliases", None) or ())
    return sorted(str(name)[:64] for name in data.keys() - known)[:20]


def _unknown_message(serializer) -> list[str]:
    names = sorted(name for name, field in serializer.fields.items() if not field.read_only)
    shown = ", ".join(names[:30]) + (", ..." if len(names) > 30 else "")
    return [f"Not a field of this body (its fields: {shown})."]


def validate_body(
    serializer_class,
    data,
    *,
    partial: bool = False,
    allow_unknown_keys: bool = False,
    **context,
) -> dict:
    """The validated body. A value whose JSON shape is not the documented one (the
    `invalid_shape` code of common.api.fields.RowListSerializer) answers 422 `invalid_shape`
    naming the field; other invalid values, and keys the body does not take
    (unknown_keys), answer 400 `invalid_param`. `allow_unknown_keys` is for payloads that
    others write (a marketplace's event), of which only some keys are read."""
    if not isinstance(data, dict):
        raise invalid_params({"body": ["Send a JSON object."]})
    serializer = serializer_class(data=data, partial=partial, context=context)
    unknown = [] if allow_unknown_keys else unknown_keys(serializer, data)
    if not serializer.is_valid():
        if _has_code(serializer.errors, SHAPE_CODE):
            raise invalid_shape(_errors(serializer))
        problems = _errors(serializer)
        problems.update({name: _unknown_message(serializer) for name in unknown})
        raise invalid_params(problems)
    if unknown:
        raise invalid_params({name: _unknown_message(serializer) for name in unknown})
    return serializer.validated_data


class StrictBody(serializers.Serializer):
    """Refuses fields it does not know (a typo, or `secret`), rather than ignoring them, where
    it is validated without validate_body (which refuses them for every body)."""

    def validate(self, attrs):
        unknown = unknown_keys(self, self.initial_data)
        if unknown:
            raise serializers.ValidationError({name: _unknown_message(self) for name in unknown})
        return attrs


# A body that also takes other names for some fields (`aliases = {"billing": "billing_address"}`):
# clients send either spelling; the field's own name wins when both are sent. (A comment: the
# OpenAPI description would show a docstring on every body built on it.)
class AliasedSerializer(serializers.Serializer):
    aliases: dict[str, str] = {}

    def to_internal_value(self, data):
        if isinstance(data, dict) and self.aliases:
            data = dict(data)
            for alias, name in self.aliases.items():
                if alias in data and name not in data:
                    data[name] = data.pop(alias)
        return super().to_internal_value(data)


# --- Fields ---------------------------------------------------------------------------------


class PageField(fields.IntegerField):
    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 1_000_000)
        kwargs.setdefault("required", False)
        kwargs.setdefault("default", 1)
        kwargs.setdefault("help_text", "Page number, from 1.")
        super().__init__(**kwargs)


class PerPageField(fields.IntegerField):
    """At least 1; values above `cap` are lowered to it (the answer's meta shows the value used)."""

    def __init__(self, *, cap: int, **kwargs):
        self.cap = cap
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", f"Items per page, at most {cap} (larger values are capped).")
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        return min(value, self.cap)


class CommaSeparatedIntegersField(serializers.CharField):
    """`"1,2,3"` -> [1, 2, 3]; every item must be a row id (a positive bigint)."""

    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        items = [item.strip() for item in text.split(",") if item.strip()]
        if not all(item.isascii() and item.lstrip("+-").isdigit() for item in items):
            raise serializers.ValidationError("Expected comma-separated integers, e.g. 1,2,3.")
        values = [fields.parse_id(item.lstrip("+")) for item in items]
        if any(value is None for value in values):
            raise serializers.ValidationError(f"Ids are integers from 1 to {fields.BIGINT_MAX}.")
        return list(dict.fromkeys(values))

    def to_representation(self, value):
        return ",".join(str(item) for item in value)


class ChoiceListField(serializers.CharField):
    """One value or several, comma-separated, each one of `choices`."""

    def __init__(self, *, choices, **kwargs):
        self.allowed = list(choices)
        kwargs.setdefault("required", False)
        kwargs.setdefault(
            "help_text", f"One or several, comma-separated: {', '.join(self.allowed)}."
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        text = super().to_internal_value(data)
        values = [v.strip().lower() for v in text.split(",") if v.strip()]
        wrong = [v for v in values if v not in self.allowed]
        if wrong:
            raise serializers.ValidationError(
                f"Unknown value(s) {', '.join(wrong)}; use {', '.join(self.allowed)}."
            )
        return list(dict.fromkeys(values))


class CaseInsensitiveChoiceField(serializers.ChoiceField):
    """A choice matched without regard to case, answered in its declared spelling."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            for choice in self.choices:
                if isinstance(choice, str) and choice.lower() == data.strip().lower():
                    return choice
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false only (JSON booleans): settings refuse "yes", 1 and the like."""

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        self.fail("invalid", input=data)


StrictIntegerField = fields.StrictIntegerField


class StrictDecimalField(serializers.DecimalField):
    """A JSON number or a decimal string, never a boolean; a float goes through its shortest
    repr (0.1 is 0.1, not 0.1000000000000000055...). At least 0 unless `min_value` says
    otherwise (an int: the OpenAPI description writes it as a number). The base of money
    (store.common.money.MoneyField) and of measures."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_value", 0)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, float):
            data = repr(data)
        return super().to_internal_value(data)


class NumberField(StrictDecimalField):
    """A measure (a weight, a dimension): up to 10 digits, 3 places, optional and nullable."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_digits", 10)
        kwargs.setdefault("decimal_places", 3)
        kwargs.setdefault("required", False)
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)


class IdListField(serializers.ListField):
    """A list of row ids (at most 500 by default); optional."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", fields.IdField())
        kwargs.setdefault("required", False)
        kwargs.setdefault("max_length", 500)
        super().__init__(**kwargs)


class StrictCharField(serializers.CharField):
    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)
