"""One JSON loader for every request body (the API parsers and the idempotency fingerprint).

Python's json has no depth limit (a body nested 1,000 levels deep raises RecursionError, which
is not a ValueError) and lets through strings no database can store: NUL characters (PostgreSQL
refuses them in text) and unpaired UTF-16 surrogates (`"\\ud800"`: they cannot be encoded).
`loads` refuses all three with `UnusableInput` (a ValueError) before any view sees the data;
the parsers turn that into a 400 `parse_error` in the namespace's error style. Every reader of
a request body uses `loads`: the portal's and the store's parsers, the idempotency fingerprint.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate

from django.conf import settings

#: The deepest nesting of arrays and objects a body may have (the API's bodies need 4).
MAX_JSON_DEPTH = 64

# A JSON string (its brackets are text, not nesting).
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
# An escape that decodes to NUL or to a surrogate: only then are the decoded strings walked.
_SUSPECT_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
# Characters that cannot be stored: NUL, and surrogates (json decodes a valid pair into one
# character, so a surrogate left in a decoded string is unpaired).
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


class UnusableInput(ValueError):
    """The input cannot be used: malformed, nested too deep, or holding unstorable text."""


def unstorable_text_problem(text: str) -> str | None:
    """What makes `text` unstorable, or None."""
    match = UNSTORABLE.search(text)
    if match is None:
        return None
    if match.group() == "\x00":
        return "contains a NUL character (U+0000)"
    return "contains an unpaired UTF-16 surrogate (U+D800 to U+DFFF)"


def _check_depth(text: str, max_depth: int) -> None:
    """Refuse nesting deeper than `max_depth` before parsing (so without recursing).

    Strings are dropped (their brackets are text), then everything but brackets; the deepest
    level is the highest running sum of +1 per opening and -1 per closing bracket (computed
    in C: `accumulate` over `map`).
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > max_depth:
        raise UnusableInput(f"The JSON is nested more than {max_depth} levels deep.")


def _location(path: tuple) -> str:
    return ".".join(str(part) for part in path) or "the body"


def _check_strings(value) -> None:
    stack: list[tuple[object, tuple]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            problem = unstorable_text_problem(item)
            if problem:
                raise UnusableInput(f"The string at {_location(path)} {problem}.")
        elif isinstance(item, dict):
            for key, child in item.items():
                problem = unstorable_text_problem(key)
                if problem:
                    raise UnusableInput(f"A key in {_location(path)} {problem}.")
                stack.append((child, (*path, key)))
        elif isinstance(item, list):
            stack.extend((child, (*path, index)) for index, child in enumerate(item))


def _refuse_constant(name: str):
    raise UnusableInput(f"{name} is not valid JSON.")


def _finite_float(text: str) -> float:
    """A JSON number with a fraction or exponent; one too large for a float (1e400 would be
    infinity, which no JSON column, jsonb included, can store) is refused."""
    value = float(text)
    if not math.isfinite(value):
        raise UnusableInput(f"The number {text[:40]} is too large.")
    return value


def loads(data: str | bytes, *, max_depth: int = MAX_JSON_DEPTH):
    """Parse a JSON document, refusing what `json.loads` would choke on or let through.

    Raises UnusableInput (a ValueError) for malformed JSON, NaN/Infinity (written as such or
    as a number too large for a float, e.g. 1e400), nesting deeper than
    `max_depth`, and strings or keys holding NUL characters or unpaired surrogates.
    """
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode(settings.DEFAULT_CHARSET)
        except UnicodeDecodeError as exc:
            raise UnusableInput(f"The body is not valid {settings.DEFAULT_CHARSET}.") from exc
    _check_depth(data, max_depth)
    try:
        value = json.loads(data, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:  # cannot happen below the depth limit; a guard all the same
        raise UnusableInput("The JSON is nested too deeply.") from None
    except UnusableInput:
        raise
    except ValueError as exc:
        raise UnusableInput(str(exc)) from None
    if _SUSPECT_ESCAPE.search(data) or UNSTORABLE.search(data):
        _check_strings(value)
    return value
