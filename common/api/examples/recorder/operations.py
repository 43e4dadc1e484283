"""What the recorder works with: an operation of a description, a recipe (what the generic
rules cannot guess about one), a call and its answer, and the run's phases.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from common.api.examples import JSON

METHODS = ("get", "post", "put", "patch", "delete")
MULTIPART = "multipart/form-data"

#: An id no demo row has: the error example of an operation on one resource.
UNKNOWN_ID = 987654321

# The run's phases (`Recipe.phase` places an operation elsewhere): creations first, so that
# lists show what they list; deletions last, the deepest paths first.
FIRST, CREATE, LIST, READ, UPDATE, ACTION, DELETE, LAST = 0, 10, 20, 30, 40, 50, 60, 90
UNSET: Any = object()


@dataclass
class Operation:
    description: str
    method: str
    path: str
    prefix: str
    spec: dict

    @property
    def operation_id(self) -> str:
        return self.spec["operationId"]

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def params(self) -> list[str]:
        return re.findall(r"{(\w+)}", self.path)

    def param_schema(self, name: str) -> dict:
        for parameter in self.spec.get("parameters", []):
            if parameter.get("in") == "path" and parameter.get("name") == name:
                return parameter.get("schema", {})
        return {}

    def body_media_types(self) -> list[str]:
        return list(self.spec.get("requestBody", {}).get("content", {}))

    @property
    def has_body(self) -> bool:
        return bool(self.body_media_types())

    def body_schema(self, media_type: str) -> dict:
        return self.spec["requestBody"]["content"][media_type].get("schema", {})

    def documents(self, status: int) -> bool:
        return str(status) in self.spec.get("responses", {})

    @property
    def public(self) -> bool:
        security = self.spec.get("security")
        return security is None or security == [] or {} in security


@dataclass
class Recipe:
    """What the generic rules cannot guess about one operation.

    Every value may be a callable taking the recorder (and, for `body`, the path parameters)
    and answering the value, evaluated when the operation's turn comes.
    """

    actor: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    query: Any = None
    body: Any = UNSET
    media_type: str | None = None
    #: Multipart only: the uploaded files, {field: (name, bytes, content type)}.
    files: Any = None
    #: Request headers, or a callable taking the recorder, the path parameters and the body
    #: (a signature of the body).
    headers: Any = field(default_factory=dict)
    #: Sorting key of the run (see `phase`); later phases run later.
    phase: int | None = None
    #: The error call: the same call with these parts replaced (actor, params, query, body,
    #: headers), tried before the generic ones.
    error: Any = None
    #: Called with the recorder before the success call (prepares what it needs). Typed Any:
    #: the Recorder is built on this module, which cannot name it without an import cycle.
    before: Callable[[Any], None] | None = None


@dataclass
class Call:
    actor: str
    url: str
    method: str
    query: dict | None = None
    body: Any = UNSET
    media_type: str = JSON
    files: dict | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Answer:
    status: int
    media_type: str
    value: Any  # JSON, text, or None (binary or empty)
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


class RecordingError(Exception):
    pass
