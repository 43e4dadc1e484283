"""The OpenAPI descriptions' examples (common.api.examples): every operation the API documents
name shows a request body (when it takes one), a success answer and an error answer; every
example is valid under the schema it illustrates; the recorded files match the descriptions.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import _load_enum_name_overrides
from openapi_schema_validator import oas30_format_checker

from common.api.examples import DESCRIPTIONS, JSON, recorded
from common.api.examples.validation import SchemaChecker
from store.docs.schema import CORE, STORE, THEME, schema_document
from tests.openapi_examples.spec_paths import named_by_spec, unmatched

METHODS = ("get", "post", "put", "patch", "delete")
BINARY = {"type": "string", "format": "binary"}


def portal_document() -> dict:
    _load_enum_name_overrides.cache_clear()
    try:
        return SchemaGenerator().get_schema(request=None, public=True)
    finally:
        _load_enum_name_overrides.cache_clear()


@pytest.fixture(scope="module")
def documents() -> dict[str, dict]:
    return {
        "portal": portal_document(),
        "store": schema_document(STORE),
        "theme": schema_document(THEME),
        "core": schema_document(CORE),
    }


def operations(document: dict):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield path, method, operation


def has_examples(contents: dict) -> bool:
    return any(content.get("examples") for content in contents.values())


def shows_a_body(answer: dict) -> bool:
    """An answer with something an example can show (not nothing, not only a file)."""
    return any(content.get("schema") != BINARY for content in answer.get("content", {}).values())


def missing_examples(operation: dict) -> list[str]:
    missing = []
    body = operation.get("requestBody", {}).get("content", {})
    if body and not has_examples(body):
        missing.append("request")
    answers = operation["responses"]
    successes = [a for s, a in answers.items() if s.startswith("2") and shows_a_body(a)]
    if successes and not any(has_examples(a.get("content", {})) for a in successes):
        missing.append("success")
    errors = [a for s, a in answers.items() if s.startswith("4")]
    if not any(has_examples(a.get("content", {})) for a in errors):
        missing.append("error")
    return missing


@pytest.mark.parametrize("name", list(DESCRIPTIONS))
def test_every_route_the_documents_name_is_described(documents, name):
    assert unmatched(name, documents[name]["paths"]) == []


@pytest.mark.parametrize("name", list(DESCRIPTIONS))
def test_every_operation_the_documents_name_has_its_examples(documents, name):
    named = [
        (path, method, operation)
        for path, method, operation in operations(documents[name])
        if named_by_spec(name, path)
    ]
    assert named
    problems = [
        f"{method.upper()} {path} ({operation['operationId']}): no {', '.join(missing)} example"
        for path, method, operation in named
        if (missing := missing_examples(operation))
    ]
    assert problems == [], "\n".join(problems)


def test_a_request_example_is_on_the_body_and_each_answer_under_its_status(documents):
    operation = documents["store"]["paths"]["/products"]["post"]
    request = operation["requestBody"]["content"][JSON]["examples"]
    assert request["Request"]["value"]["title"]
    created = operation["responses"]["201"]["content"][JSON]["examples"]
    assert [example["summary"] for example in created.values()] == ["201 Created"]
    refused = [
        example
        for status, answer in operation["responses"].items()
        if status.startswith("4")
        for example in answer.get("content", {}).get(JSON, {}).get("examples", {}).values()
    ]
    assert len(refused) == 1
    assert refused[0]["value"]["data"]["status"] == int(refused[0]["summary"].split()[0])


def examples_of(document: dict):
    """(where, example value, schema, direction) of every example of the description."""
    for path, method, operation in operations(document):
        where = f"{method.upper()} {path}"
        for media_type, content in operation.get("requestBody", {}).get("content", {}).items():
            for name, example in content.get("examples", {}).items():
                yield f"{where} request {media_type} {name}", example, content, "request"
        for status, answer in operation["responses"].items():
            for media_type, content in answer.get("content", {}).items():
                for name, example in content.get("examples", {}).items():
                    yield f"{where} {status} {media_type} {name}", example, content, "response"


@pytest.mark.parametrize("name", list(DESCRIPTIONS))
def test_every_example_is_valid_under_its_schema(documents, name):
    """Checked as schemathesis reads OpenAPI 3.0 (`nullable` anywhere admits null), with the
    formats (date-time, email, ...) checked too."""
    document = documents[name]
    checker = SchemaChecker(document, format_checker=oas30_format_checker)
    problems = []
    count = 0
    for where, example, content, _direction in examples_of(document):
        count += 1
        errors = checker.errors(example["value"], content.get("schema", {}))
        problems += [f"{where}: {error[:200]}" for error in errors[:3]]
    assert count
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", list(DESCRIPTIONS))
def test_the_recorded_examples_are_of_operations_that_exist(documents, name):
    """Every recorded operation is in the description, at its method and path, and each
    recorded answer's status is one the operation documents (else its example is lost)."""
    document = documents[name]
    described = {
        operation["operationId"]: (method.upper(), path, operation)
        for path, method, operation in operations(document)
    }
    entries = recorded(name)
    assert entries
    problems = []
    for operation_id, entry in entries.items():
        if operation_id not in described:
            problems.append(f"{operation_id}: no such operation")
            continue
        method, path, operation = described[operation_id]
        if (entry["method"], entry["path"]) != (method, path):
            problems.append(f"{operation_id}: recorded as {entry['method']} {entry['path']}")
        for answer in entry["responses"]:
            if str(answer["status"]) not in operation["responses"]:
                problems.append(f"{operation_id}: {answer['status']} is not documented")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", list(DESCRIPTIONS))
def test_each_recording_has_a_success_and_an_error_answer(name):
    for operation_id, entry in recorded(name).items():
        statuses = [answer["status"] for answer in entry["responses"]]
        assert sum(400 <= s < 500 for s in statuses) == 1, operation_id
        assert sum(200 <= s < 300 for s in statuses) <= 1, operation_id
        assert entry.get("source") in ("recorded", "hand-written"), operation_id


def test_no_local_machine_in_the_recordings():
    """The recordings name the examples' host, never the recorder's machine."""
    for name in DESCRIPTIONS:
        text = str(recorded(name))
        assert "testserver" not in text
        assert "127.0.0.1" not in text
        assert str(settings.BASE_DIR) not in text
