"""The values of a recording: made up for a field by its name and schema, picked from an
answer, refused by a schema (the error calls), and a recorded value cut down and rid of the
machine it was recorded on.
"""

from __future__ import annotations

import datetime
import json
import re
import tempfile
from collections.abc import Callable
from typing import Any

from django.conf import settings

from common import links
from common.api.examples.recorder.operations import UNSET

#: Arrays in recorded answers are cut to this many entries (the example stays readable).
MAX_ITEMS = 3

#: Text answers (feeds, log downloads) are cut to this many characters, and strings of JSON
#: answers and request bodies to MAX_STRING.
MAX_TEXT = 1500
MAX_STRING = 600

EXAMPLE_HOST = "https://api.example.com"


def today() -> datetime.date:
    return datetime.datetime.now(datetime.UTC).date()


def iso_now() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


_STRING_BY_NAME: list[tuple[str, Callable[[], str]]] = [
    (r"(^|_)email$", lambda: "maria.papadopoulou@example.com"),
    (r"password$", lambda: "Correct-Horse-Battery-9"),
    (r"(^|_)(country|country_code)$", lambda: "GR"),
    (r"currency", lambda: "EUR"),
    (r"phone|mobile", lambda: "+30 210 123 4567"),
    (r"post_?code|zip", lambda: "10558"),
    (r"(^|_)city$", lambda: "Athens"),
    (r"(^|_)(region|state)$", lambda: "Attica"),
    (r"address_?1|street|(^|_)address$", lambda: "Ermou 12"),
    (r"address_?2", lambda: "2nd floor"),
    (r"first_name", lambda: "Maria"),
    (r"last_name", lambda: "Papadopoulou"),
    (r"(^|_)company", lambda: "Aegean Goods S.A."),
    (r"domain", lambda: "shop.example.com"),
    (r"(^|_)(url|website|endpoint|callback)$", lambda: "https://shop.example.com/hooks/emporion"),
    (r"(^|_)(language|locale|lang)$", lambda: "en"),
    (r"timezone", lambda: "Europe/Athens"),
    (r"colou?r", lambda: "#1a73e8"),
    (r"(^|_)slug$", lambda: "example-item"),
    (r"(^|_)sku$", lambda: "EX-SKU-001"),
    (r"(^|_)code$", lambda: "EXAMPLE10"),
    (r"vat|tax_number|tax_id", lambda: "EL094014201"),
    (r"iban", lambda: "GR1601101250000000012300695"),
    (
        r"(^|_)(note|notes|comment|message|reason|description|content|body)$",
        lambda: "Recorded for the API examples.",
    ),
    (r"(^|_)(title|subject)$", lambda: "Example title"),
    (r"(^|_)name$", lambda: "Example name"),
    (r"(^|_)(token|key|secret)$", lambda: "example-token"),
    (r"(^|_)version$", lambda: "1.0.0"),
]


def string_for(name: str, schema: dict) -> str:
    fmt = schema.get("format")
    if fmt == "date":
        return today().isoformat()
    if fmt == "date-time":
        return iso_now()
    if fmt == "email":
        return "maria.papadopoulou@example.com"
    if fmt in ("uri", "url"):
        return "https://shop.example.com/hooks/emporion"
    if fmt == "uuid":
        return "3f8e2b1c-9d4a-4e1b-8c2f-5a6b7c8d9e0f"
    if fmt == "decimal":
        return "19.90"
    if fmt == "time":
        return "09:00:00"
    for pattern, make in _STRING_BY_NAME:
        if re.search(pattern, name):
            value = make()
            break
    else:
        value = "example"
    minimum, maximum = schema.get("minLength"), schema.get("maxLength")
    if maximum is not None:
        value = value[:maximum]
    if minimum is not None and len(value) < minimum:
        value = value.ljust(minimum, "x")
    return value


def is_id_key(name: str) -> bool:
    return name == "id" or name.endswith("_id")


def pick(value: Any, keys: list[str]) -> Any:
    """The first of `keys` found with a plain value, breadth first through `value`."""
    queue = [value]
    while queue:
        current = queue.pop(0)
        if isinstance(current, dict):
            for key in keys:
                found = current.get(key)
                if isinstance(found, str | int) and not isinstance(found, bool) and found != "":
                    return found
            queue.extend(v for v in current.values() if isinstance(v, dict | list))
        elif isinstance(current, list):
            queue.extend(v for v in current if isinstance(v, dict | list))
    return None


def first_item(value: Any) -> dict | None:
    """The first object of the first list of objects in an answer (a list's first entry)."""
    queue = [value]
    while queue:
        current = queue.pop(0)
        if isinstance(current, list):
            for entry in current:
                if isinstance(entry, dict):
                    return entry
        elif isinstance(current, dict):
            queue.extend(v for v in current.values() if isinstance(v, dict | list))
    return None


def wrong_value(schema: dict) -> Any:
    """A value that `schema` refuses, of the kind a client gets wrong."""
    kind = schema.get("type")
    if "enum" in schema:
        return "not-a-choice"
    if kind in ("integer", "number"):
        return "many"
    if kind == "boolean":
        return "maybe"
    if kind == "array":
        return "not-a-list"
    if kind == "object":
        return "not-an-object"
    if kind == "string":
        return {
            "date": "yesterday",
            "date-time": "yesterday",
            "email": "not-an-address",
            "decimal": "a lot",
        }.get(schema.get("format"), {"not": "a string"})
    return UNSET


def singular(name: str) -> str:
    if name.endswith("ies"):
        return name[:-3] + "y"
    if name.endswith("s"):
        return name[:-1]
    return name


_PATCH_PREFERRED = (
    "name",
    "title",
    "status",
    "is_active",
    "enabled",
    "description",
    "notes",
    "note",
    "quantity",
    "priority",
)


def patch_subset(body: dict, required: set[str]) -> dict:
    """The fields a partial update sends: one or two telling ones, not the empty ones."""
    body = {key: value for key, value in body.items() if value not in ("", None, [], {})} or body
    chosen = [key for key in _PATCH_PREFERRED if key in body][:2]
    if not chosen:
        chosen = list(body)[:2]
    return {key: body[key] for key in dict.fromkeys([*chosen, *(required & set(body))])}


def without_local_machine(value: Any) -> Any:
    """A recorded value without the machine it was recorded on: the test server's host (and
    the development server's, in links the settings build) is the examples' host, and no local
    directory is named."""
    text = json.dumps(value)
    for local in ("http://testserver", links.site_url()):
        text = text.replace(local, EXAMPLE_HOST)
    for directory in (str(settings.BASE_DIR), tempfile.gettempdir()):
        text = text.replace(json.dumps(directory)[1:-1], "/srv/emporion")
    return json.loads(text)


def shortened_strings(value: Any) -> Any:
    """A request body with its long strings cut (its arrays are what was sent)."""
    if isinstance(value, list):
        return [shortened_strings(v) for v in value]
    if isinstance(value, dict):
        return {k: shortened_strings(v) for k, v in value.items()}
    if isinstance(value, str) and len(value) > MAX_STRING:
        return value[:MAX_STRING] + "…"
    return value


def shortened(value: Any) -> Any:
    """An answer cut down for an example: MAX_ITEMS entries per array, MAX_STRING characters
    per string (an e-mail template's HTML)."""
    if isinstance(value, list):
        return [shortened(v) for v in value[:MAX_ITEMS]]
    if isinstance(value, dict):
        return {k: shortened(v) for k, v in value.items()}
    if isinstance(value, str) and len(value) > MAX_STRING:
        return value[:MAX_STRING] + "…"
    return value
