"""Checking a value against a schema of an OpenAPI 3.0 description, with `jsonschema`.

OpenAPI 3.0 schemas are JSON Schema draft 4 with a few words of their own; the one that changes
what is valid is `nullable`, turned here into an alternative with null wherever it stands (also
beside an `allOf` or a `oneOf`, as drf-spectacular writes a nullable nested object, and as
schemathesis reads it). `$ref`s point into the description's components, which travel with the
schema.
"""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft4Validator

_OPENAPI_ONLY = ("nullable", "readOnly", "writeOnly", "discriminator", "xml", "externalDocs")
_VALUES = ("example", "default", "enum")


def plain_json_schema(schema: Any) -> Any:
    """An OpenAPI 3.0 schema as a JSON Schema draft 4 one."""
    if isinstance(schema, list):
        return [plain_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {
        key: value if key in _VALUES else plain_json_schema(value)
        for key, value in schema.items()
        if key not in _OPENAPI_ONLY
    }
    if schema.get("nullable") is True:
        if "enum" in converted and None not in converted["enum"]:
            converted["enum"] = [*converted["enum"], None]
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


class SchemaChecker:
    """Validators for the schemas of one description, each built once."""

    def __init__(self, document: dict, *, format_checker=None):
        self.components = plain_json_schema(document.get("components", {}))
        self.format_checker = format_checker
        self._validators: dict[str, Draft4Validator] = {}

    def errors(self, value: Any, schema: dict) -> list[str]:
        """What is wrong with `value` under `schema` ([] when it is valid)."""
        key = json.dumps(schema, sort_keys=True)
        validator = self._validators.get(key)
        if validator is None:
            validator = Draft4Validator(
                {**plain_json_schema(schema), "components": self.components},
                format_checker=self.format_checker,
            )
            self._validators[key] = validator
        return [
            f"{'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}"
            for error in validator.iter_errors(value)
        ]

    def is_valid(self, value: Any, schema: dict) -> bool:
        return not self.errors(value, schema)
