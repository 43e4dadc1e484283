"""The four method types and their settings: a JSON-schema-like description of each (answered
by GET /shipping/method-types) and the one check of a method's settings against it.

A method's settings are kept in its columns (cost, cost_per_item, min_amount, requires,
weight_rates); `settings_of` reads them, `columns_for` writes them. The description below is
the single source: `settings_problems` walks it (no second list of rules), and the cross-field
rules (a free-shipping minimum the requirement needs, weight bands by rising weight) follow.
Pure functions, no database.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from store.common.money import from_cents, money_str, parse_money
from store.shipping.calculation import weight_brackets
from store.shipping.models import FreeShippingRequires, MethodType

MAX_BANDS = 50
MAX_WEIGHT = Decimal("1000000")

_MONEY = {
    "type": ["string", "number"],
    "format": "money",
    "description": "An amount (decimal string or number, at least 0, two places at most), "
    "as product prices are entered (with or without tax: setting tax.prices_include_tax).",
}


_NONE = object()


def _money(description: str, *, nullable: bool = False, default=_NONE) -> dict:
    schema = {**_MONEY, "description": f"{description} {_MONEY['description']}"}
    if nullable:
        schema["type"] = [*schema["type"], "null"]
    if default is not _NONE:
        schema["default"] = default
    return schema


SCHEMAS: dict[str, dict] = {
    MethodType.FLAT_RATE: {
        "type": "object",
        "additionalProperties": False,
        "required": [],
        "properties": {
            "cost": _money("The cost per order.", default="0.00"),
            "cost_per_item": _money(
                "Added for each item (the sum of the quantities).", default="0.00"
            ),
        },
    },
    MethodType.FREE_SHIPPING: {
        "type": "object",
        "additionalProperties": False,
        "required": [],
        "properties": {
            "requires": {
                "type": "string",
                "enum": [choice.value for choice in FreeShippingRequires],
                "default": FreeShippingRequires.NOTHING.value,
                "description": "What makes it available: none (always), min_amount (the items "
                "after discounts reach min_amount), coupon (a free-shipping coupon), either, "
                "both.",
            },
            "min_amount": _money(
                "The order amount (items after discounts) it needs; required when `requires` "
                "is min_amount, either or both.",
                nullable=True,
                default=None,
            ),
        },
    },
    MethodType.WEIGHT_BASED: {
        "type": "object",
        "additionalProperties": False,
        "required": ["weight_rates"],
        "properties": {
            "cost": _money("A base cost added to the band's cost.", default="0.00"),
            "weight_rates": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_BANDS,
                "description": "Weight bands by rising max_weight, in the store's weight unit "
                "(setting general.weight_unit): the cart's weight (the products' or variants' "
                "weight times the quantities) takes the first band holding it; a heavier cart "
                "than the last band cannot use the method.",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["max_weight", "cost"],
                    "properties": {
                        "max_weight": {
                            "type": ["string", "number"],
                            "format": "decimal",
                            "exclusiveMinimum": 0,
                            "maximum": int(MAX_WEIGHT),
                            "description": "The heaviest weight of the band.",
                        },
                        "cost": _money("The band's cost."),
                    },
                },
            },
        },
    },
    MethodType.LOCAL_PICKUP: {
        "type": "object",
        "additionalProperties": False,
        "required": [],
        "properties": {"cost": _money("The cost (usually nothing).", default="0.00")},
    },
}

DESCRIPTIONS = {
    MethodType.FLAT_RATE: "A cost per order plus a cost per item.",
    MethodType.FREE_SHIPPING: "Costs nothing; available over a minimum amount, with a "
    "free-shipping coupon, either or both (or always).",
    MethodType.WEIGHT_BASED: "A base cost plus the cost of the weight band the cart's weight "
    "falls in.",
    MethodType.LOCAL_PICKUP: "The shopper collects the order; a fixed cost, usually none.",
}


def method_types() -> list[dict]:
    return [
        {
            "type": kind.value,
            "title": kind.label,
            "description": DESCRIPTIONS[kind],
            "settings_schema": SCHEMAS[kind],
        }
        for kind in MethodType
    ]


# --- The check ------------------------------------------------------------------------------------


def _type_ok(value, types) -> bool:
    types = [types] if isinstance(types, str) else types
    checks = {
        "string": lambda v: isinstance(v, str),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
        "null": lambda v: v is None,
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
    }
    return any(checks[name](value) for name in types)


def _type_words(types) -> str:
    types = [types] if isinstance(types, str) else types
    return " or ".join({"object": "an object", "array": "a list"}.get(t, f"a {t}") for t in types)


def _walk(schema: dict, value, where: str, problems: dict[str, str]) -> None:
    if not _type_ok(value, schema["type"]):
        problems[where] = f"Must be {_type_words(schema['type'])}."
        return
    if value is None:
        return
    if isinstance(value, dict):
        known = schema["properties"]
        for name in value:
            if name not in known:
                label = name if len(name) <= 40 else name[:40] + "..."
                problems[f"{where}.{label}"] = (
                    f"Unknown setting; this type takes {', '.join(known) or 'none'}."
                )
        for name in schema.get("required", ()):
            if name not in value:
                problems[f"{where}.{name}"] = "Required."
        for name, child in known.items():
            if name in value:
                _walk(child, value[name], f"{where}.{name}", problems)
        return
    if isinstance(value, list):
        if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
            problems[where] = f"Give {schema.get('minItems', 0)} to {schema['maxItems']} entries."
            return
        for index, item in enumerate(value):
            _walk(schema["items"], item, f"{where}.{index}", problems)
        return
    if "enum" in schema and value not in schema["enum"]:
        problems[where] = f"One of {', '.join(schema['enum'])}."
    elif schema.get("format") == "money":
        try:
            parse_money(value)
        except ValueError as exc:
            problems[where] = f"The amount {exc}."
    elif schema.get("format") == "decimal":
        try:
            number = Decimal(repr(value) if isinstance(value, float) else str(value).strip())
        except (InvalidOperation, ValueError):
            number = None
        if number is None or not number.is_finite():
            problems[where] = "Must be a number."
        elif number <= schema["exclusiveMinimum"] or number > schema["maximum"]:
            problems[where] = (
                f"Must be above {schema['exclusiveMinimum']} and at most {schema['maximum']}."
            )
        elif number != number.quantize(Decimal("0.001")):
            problems[where] = "At most 3 decimal places."


def defaults(kind: str) -> dict:
    return {
        name: prop["default"]
        for name, prop in SCHEMAS[kind]["properties"].items()
        if "default" in prop
    }


def settings_problems(kind: str, settings) -> dict[str, str]:
    """What is wrong with `settings` (complete: defaults filled in) for a method of `kind`,
    each problem under its `settings.<key>` name; empty when nothing is."""
    problems: dict[str, str] = {}
    _walk(SCHEMAS[kind], settings, "settings", problems)
    if problems:
        return problems
    if kind == MethodType.FREE_SHIPPING:
        needs_amount = settings.get("requires") in (
            FreeShippingRequires.MIN_AMOUNT,
            FreeShippingRequires.EITHER,
            FreeShippingRequires.BOTH,
        )
        if needs_amount and settings.get("min_amount") is None:
            problems["settings.min_amount"] = (
                f"Free shipping that requires {settings['requires']} needs a minimum amount."
            )
    if kind == MethodType.WEIGHT_BASED:
        try:
            weight_brackets(settings["weight_rates"])
        except ValueError as exc:
            problems["settings.weight_rates"] = str(exc)
    return problems


def settings_of(method) -> dict:
    """A method's settings, as GET answers them."""
    kind = method.type
    if kind == MethodType.FLAT_RATE:
        return {"cost": money_str(method.cost), "cost_per_item": money_str(method.cost_per_item)}
    if kind == MethodType.FREE_SHIPPING:
        return {"requires": method.requires, "min_amount": money_str(method.min_amount)}
    if kind == MethodType.WEIGHT_BASED:
        return {"cost": money_str(method.cost), "weight_rates": list(method.weight_rates or [])}
    return {"cost": money_str(method.cost)}


def columns_for(kind: str, settings: dict) -> dict:
    """The columns of a method of `kind` holding checked `settings` (the others at their
    defaults, so a method changing type keeps nothing of the old one)."""
    full = {**defaults(kind), **settings}
    columns = {
        "cost": Decimal(0),
        "cost_per_item": Decimal(0),
        "min_amount": None,
        "requires": FreeShippingRequires.NOTHING.value,
        "weight_rates": [],
    }
    for name in ("cost", "cost_per_item", "min_amount"):
        if full.get(name) is not None:
            columns[name] = parse_money(full[name])
    if kind == MethodType.FREE_SHIPPING:
        columns["requires"] = full["requires"]
    if kind == MethodType.WEIGHT_BASED:
        columns["weight_rates"] = [
            {"max_weight": format(weight.normalize(), "f"), "cost": money_str(from_cents(cost))}
            for weight, cost in weight_brackets(full["weight_rates"])
        ]
    return columns
