"""Examples of every API operation in the OpenAPI descriptions, from real exchanges.

`manage.py record_api_examples` calls each operation of the four descriptions (the portal's,
the store's, the theme and core namespaces') on the demo data in a throwaway database and
keeps, per operationId, the request body it sent, the success answer and one error answer in
`data/<description>.json`. The schema classes (common.api.schema.ApiSchemaMixin) attach them to
the operation as drf-spectacular `OpenApiExample`s: the request body's example, and each answer
under its status code (the MCP operation, built by hand, through `add_examples`). An exchange
that could not be made in-process may be written by hand in the same file, marked
`"source": "hand-written"`: the recorder keeps it until it records the operation itself (every
operation is recorded today).

Each file is read once per process; an operation without a recording gets no example.
"""

from __future__ import annotations

import functools
import json
from http import HTTPStatus
from pathlib import Path
from typing import Any

from django.conf import settings
from drf_spectacular.plumbing import build_examples_list
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.utils import OpenApiExample

DATA_DIR = Path(__file__).resolve().parent / "data"

#: Each description and the Django setting holding its drf-spectacular settings.
DESCRIPTIONS = {
    "portal": "SPECTACULAR_SETTINGS",
    "store": "STORE_SPECTACULAR_SETTINGS",
    "theme": "THEME_SPECTACULAR_SETTINGS",
    "core": "CORE_SPECTACULAR_SETTINGS",
}
JSON = "application/json"


def data_file(description: str) -> Path:
    return DATA_DIR / f"{description}.json"


@functools.cache
def recorded(description: str) -> dict[str, dict[str, Any]]:
    """The recorded operations of a description, by operationId ({} when none are)."""
    try:
        text = data_file(description).read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    return json.loads(text)["operations"]


def current_description() -> str | None:
    """The description being generated: the one whose settings drf-spectacular runs with
    (each namespace patches its own in, store.docs.schema)."""
    prefix = spectacular_settings.SCHEMA_PATH_PREFIX
    for name, setting in DESCRIPTIONS.items():
        if getattr(settings, setting, {}).get("SCHEMA_PATH_PREFIX") == prefix:
            return name
    return None


def example_name(status: int, answer: Any) -> str:
    """`201 Created`, `404 product_not_found`: the status and the error's code if any."""
    code = answer.get("code") if isinstance(answer, dict) else None
    if isinstance(code, str) and code:
        return f"{status} {code}"
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


@functools.cache
def _operation_examples(description: str, operation_id: str) -> tuple[OpenApiExample, ...]:
    entry = recorded(description).get(operation_id)
    if not entry:
        return ()
    examples = []
    request = entry.get("request")
    if request is not None:
        examples.append(
            OpenApiExample(
                "Request",
                value=request["value"],
                request_only=True,
                media_type=request.get("media_type", JSON),
            )
        )
    for answer in entry.get("responses", []):
        examples.append(
            OpenApiExample(
                example_name(answer["status"], answer["value"]),
                value=answer["value"],
                response_only=True,
                media_type=answer.get("media_type", JSON),
                status_codes=[str(answer["status"])],
            )
        )
    return tuple(examples)


def operation_examples(description: str | None, operation_id: str) -> tuple[OpenApiExample, ...]:
    """The recorded examples of an operation, request and answers."""
    if description is None:
        return ()
    return _operation_examples(description, operation_id)


def examples_for(
    operation_id: str, direction: str, media_type: str | None, status_code: str | None
) -> dict[str, dict]:
    """The OpenAPI `examples` map of one media type object of the operation being generated:
    its request body's (direction "request") or the answer's with `status_code`."""
    chosen = []
    for example in operation_examples(current_description(), operation_id):
        if direction == "request" and example.response_only:
            continue
        if direction == "response" and (
            example.request_only or str(status_code) not in example.status_codes
        ):
            continue
        if media_type and media_type != example.media_type:
            continue
        chosen.append(example)
    return build_examples_list(chosen)


def add_examples(operation: dict, description: str) -> dict:
    """A hand-built operation (one drf-spectacular does not generate) with its recorded
    examples put in its request body and answers, as the schema classes do for the others."""
    examples = operation_examples(description, operation["operationId"])
    body = operation.get("requestBody", {}).get("content", {})
    for media_type, content in body.items():
        chosen = [e for e in examples if e.request_only and e.media_type == media_type]
        if chosen:
            content["examples"] = build_examples_list(chosen)
    for status, answer in operation.get("responses", {}).items():
        for media_type, content in answer.get("content", {}).items():
            chosen = [
                e
                for e in examples
                if e.response_only and e.media_type == media_type and status in e.status_codes
            ]
            if chosen:
                content["examples"] = build_examples_list(chosen)
    return operation
