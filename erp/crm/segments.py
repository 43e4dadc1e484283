"""Segment rules: a saved filter as data, never SQL nor ORM lookups.

A rule set is `{"match": "all" | "any", "conditions": [{"field", "op", "value"}, ...]}`.
Each target (contacts, customers) declares its fields, each field has a type, and each type
its operators; `rules_clean` refuses anything else (naming the condition), and `rules_q`
turns a cleaned rule set into a Q over the target's model (customers annotated with their
paid-order figures by erp.crm.selectors).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation

from django.db.models import Q
from django.utils import timezone

from erp.crm.choices import SegmentTarget
from store.common.addresses import countries

MAX_CONDITIONS = 20
MAX_VALUES = 50
MAX_TEXT = 200
COUNTRY_CODES = frozenset(code for code, _name in countries)

TEXT, COUNTRY, ID, BOOL, DATE, INT, MONEY = "text", "country", "id", "bool", "date", "int", "money"

OPERATORS = {
    TEXT: ("eq", "ne", "contains", "startswith", "in", "is_empty"),
    COUNTRY: ("eq", "ne", "in", "is_empty"),
    ID: ("eq", "ne", "in", "is_empty"),
    BOOL: ("eq",),
    DATE: ("before", "after", "within_days", "not_within_days", "is_empty"),
    INT: ("eq", "ne", "lt", "lte", "gt", "gte"),
    MONEY: ("eq", "ne", "lt", "lte", "gt", "gte"),
}

#: field -> (type, the model field or annotation it reads)
FIELDS = {
    SegmentTarget.CONTACTS: {
        "name": (TEXT, "name"),
        "email": (TEXT, "email"),
        "phone": (TEXT, "phone"),
        "company": (TEXT, "company"),
        "job_title": (TEXT, "job_title"),
        "city": (TEXT, "city"),
        "country": (COUNTRY, "country"),
        "owner_id": (ID, "owner_id"),
        "is_customer": (BOOL, "customer_id"),
        "created_at": (DATE, "created_at"),
    },
    SegmentTarget.CUSTOMERS: {
        "email": (TEXT, "email"),
        "first_name": (TEXT, "first_name"),
        "last_name": (TEXT, "last_name"),
        "company": (TEXT, "company"),
        "phone": (TEXT, "phone"),
        "created_at": (DATE, "created_at"),
        "order_count": (INT, "paid_order_count"),
        "total_spent": (MONEY, "paid_total"),
        "last_order_at": (DATE, "last_order_at"),
    },
}


def _unencodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _value(kind: str, op: str, value):
    """The value checked for its field's type and operator; ValueError saying what is wrong."""
    if op == "is_empty" or kind == BOOL:
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return value
    if op == "in":
        if not isinstance(value, list) or not 1 <= len(value) <= MAX_VALUES:
            raise ValueError(f"must be a list of 1 to {MAX_VALUES} values")
        return list(dict.fromkeys(_value(kind, "eq", item) for item in value))
    if kind == TEXT:
        if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
            raise ValueError(f"must be a text of 1 to {MAX_TEXT} characters")
        if "\x00" in value or _unencodable(value):
            raise ValueError("must be printable text (no NUL or lone surrogate characters)")
        return value.strip()
    if kind == COUNTRY:
        if not isinstance(value, str) or value.strip().upper() not in COUNTRY_CODES:
            raise ValueError("must be an ISO 3166-1 alpha-2 country code")
        return value.strip().upper()
    if kind == ID:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value < 2**63:
            raise ValueError("must be a row id")
        return value
    if kind == INT:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
            raise ValueError("must be a whole number from 0")
        return value
    if kind == MONEY:
        if isinstance(value, bool) or not isinstance(value, (int, str, float)):
            raise ValueError("must be a decimal amount")
        try:
            amount = Decimal(repr(value) if isinstance(value, float) else str(value))
        except InvalidOperation:
            raise ValueError("must be a decimal amount") from None
        if not amount.is_finite() or amount < 0 or amount >= Decimal(10) ** 10:
            raise ValueError("must be an amount from 0 below 10^10")
        return str(amount.quantize(Decimal("0.01")))
    # DATE
    if op in ("within_days", "not_within_days"):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 36500:
            raise ValueError("must be a number of days from 1 to 36500")
        return value
    if not isinstance(value, str):
        raise ValueError("must be a date (YYYY-MM-DD)")
    try:
        return dt.date.fromisoformat(value).isoformat()
    except ValueError:
        raise ValueError("must be a date (YYYY-MM-DD)") from None


def rules_clean(target: str, rules) -> tuple[dict, dict[str, list[str]]]:
    """(the cleaned rule set, problems by `rules.conditions.<n>.<key>`)."""
    problems: dict[str, list[str]] = {}
    fields = FIELDS.get(target, {})
    if not isinstance(rules, dict) or set(rules) - {"match", "conditions"}:
        return {}, {"rules": ['Send {"match": "all"|"any", "conditions": [...]}.']}
    match = rules.get("match", "all")
    if match not in ("all", "any"):
        problems["rules.match"] = ['"all" or "any".']
    conditions = rules.get("conditions")
    if not isinstance(conditions, list) or not 1 <= len(conditions) <= MAX_CONDITIONS:
        problems["rules.conditions"] = [f"A list of 1 to {MAX_CONDITIONS} conditions."]
        return {}, problems
    cleaned = []
    for index, condition in enumerate(conditions):
        where = f"rules.conditions.{index}"
        if not isinstance(condition, dict) or set(condition) != {"field", "op", "value"}:
            problems[where] = ["Each condition is {field, op, value}."]
            continue
        field, op = condition["field"], condition["op"]
        if not isinstance(field, str) or field not in fields:
            problems[f"{where}.field"] = [f"One of {', '.join(fields)}."]
            continue
        kind = fields[field][0]
        if not isinstance(op, str) or op not in OPERATORS[kind]:
            problems[f"{where}.op"] = [f"For {field}: one of {', '.join(OPERATORS[kind])}."]
            continue
        try:
            value = _value(kind, op, condition["value"])
        except ValueError as exc:
            problems[f"{where}.value"] = [f"{field} {op}: the value {exc}."]
            continue
        cleaned.append({"field": field, "op": op, "value": value})
    return {"match": match, "conditions": cleaned}, problems


def _condition_q(target: str, condition: dict) -> Q:
    kind, column = FIELDS[target][condition["field"]]
    op, value = condition["op"], condition["value"]
    if kind == BOOL:  # "is a customer": the link is set
        return Q(**{f"{column}__isnull": not value})
    if op == "is_empty":
        empty = Q(**{column: ""}) if kind in (TEXT, COUNTRY) else Q(**{f"{column}__isnull": True})
        return empty if value else ~empty
    if kind == DATE:
        if op in ("within_days", "not_within_days"):
            since = timezone.now() - dt.timedelta(days=value)
            recent = Q(**{f"{column}__gte": since})
            return recent if op == "within_days" else (~recent | Q(**{f"{column}__isnull": True}))
        day = dt.datetime.combine(dt.date.fromisoformat(value), dt.time.min, tzinfo=dt.UTC)
        if op == "before":
            return Q(**{f"{column}__lt": day})
        return Q(**{f"{column}__gte": day + dt.timedelta(days=1)})
    if kind == TEXT:
        lookups = {"eq": "iexact", "ne": "iexact", "contains": "icontains"}
        lookups |= {"startswith": "istartswith"}
        if op == "in":
            return Q(**{f"{column}__in": value})
        matched = Q(**{f"{column}__{lookups[op]}": value})
        return ~matched if op == "ne" else matched
    if kind == MONEY:
        value = Decimal(value)
    if op == "in":
        return Q(**{f"{column}__in": value})
    if op == "ne":
        return ~Q(**{column: value})
    if op == "eq":
        return Q(**{column: value})
    return Q(**{f"{column}__{op}": value})


def rules_q(target: str, rules: dict) -> Q:
    """The Q of a cleaned rule set (all conditions: AND; any: OR)."""
    out = Q()
    for condition in rules.get("conditions", []):
        q = _condition_q(target, condition)
        out = (out & q) if rules.get("match", "all") == "all" else (out | q)
    return out
