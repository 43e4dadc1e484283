"""The recorder's session (the base of `Recorder`): its callers, the descriptions as served,
their schemas, sending a call and reading its answer, the recipe and caller of an operation,
and what recipes call on the recorder.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.test.client import MULTIPART_CONTENT
from django.utils.module_loading import import_string

from common.api.examples import DESCRIPTIONS, JSON
from common.api.examples.recorder.operations import (
    METHODS,
    MULTIPART,
    UNSET,
    Answer,
    Call,
    Operation,
    Recipe,
    RecordingError,
)
from common.api.examples.recorder.values import MAX_TEXT
from common.api.examples.validation import SchemaChecker


class Session:
    """The state of a run and the calls it makes; `Planner` and `Recorder` build on it."""

    def __init__(
        self,
        *,
        recipes: dict[str, dict[str, Recipe]],
        only: Iterable[str] | None = None,
        log: Callable[[str], None] = print,
        default_actor: Callable[[Operation], str],
    ):
        self.recipes = recipes
        self.only = list(only or DESCRIPTIONS)
        self.log = log
        self.default_actor = default_actor
        self.documents: dict[str, dict] = {}
        self.checkers: dict[str, SchemaChecker] = {}
        self.operations: list[Operation] = []
        self.results: dict[str, dict[str, dict]] = {name: {} for name in DESCRIPTIONS}
        self.failures: list[str] = []
        self.clients: dict[str, Client] = {}
        #: The last answer of a successful creation, by description and concrete path.
        self.created: dict[tuple[str, str], Any] = {}
        #: The last request body of a successful call, by description and "METHOD template".
        self.sent: dict[tuple[str, str], Any] = {}
        self.values: dict[str, Any] = {}  # what recipes keep for later ones
        self._copies: dict[tuple[str, str], int] = {}

    # -- callers --

    def add_client(self, actor: str, client: Client) -> None:
        client.raise_request_exception = False
        self.clients[actor] = client

    def client(self, actor: str) -> Client:
        if actor == "anonymous":
            return Client(raise_request_exception=False)
        try:
            return self.clients[actor]
        except KeyError:
            raise RecordingError(f"no caller {actor!r}") from None

    def bearer(self, actor: str, email: str, password: str) -> str:
        client = Client(raise_request_exception=False)
        response = client.post(
            "/api/v1/portal/auth/login",
            data=json.dumps({"email": email, "password": password}),
            content_type=JSON,
        )
        if response.status_code != 200:
            raise RecordingError(f"log-in of {email}: {response.status_code} {response.content!r}")
        token = response.json()["access_token"]
        self.add_client(actor, Client(HTTP_AUTHORIZATION=f"Bearer {token}"))
        return token

    def app_password(self, actor: str, email: str) -> None:
        """A caller with an application password of `email`'s (HTTP Basic)."""
        out = io.StringIO()
        call_command(
            "create_app_password",
            email,
            f"API examples ({actor})",
            stdout=out,
            stderr=io.StringIO(),
        )
        basic = base64.b64encode(f"{email}:{out.getvalue().strip()}".encode()).decode()
        self.add_client(actor, Client(HTTP_AUTHORIZATION=f"Basic {basic}"))

    def setup_callers(self) -> None:
        """The run's callers: the reseller (portal), the store's administrator and the demo
        customer (application passwords), two guests with a cart cookie each ("shopper" keeps
        a cart, "buyer" checks out). "anonymous" is a new client on every call."""
        self.bearer(
            "reseller", "reseller@example.com", import_string("accounts.demo.DEMO_PASSWORD")
        )
        self.app_password("admin", "admin@example.com")
        self.app_password("customer", "developer@example.com")
        self.add_client("shopper", Client())
        self.add_client("buyer", Client())

    # -- descriptions --

    def load_descriptions(self) -> None:
        """The descriptions as served: the portal's to anyone, the namespaces' to the
        administrator."""
        root = settings.REST_ROOT
        sources = {
            "portal": ("anonymous", "/api/v1/schema/?format=json"),
            "store": ("admin", f"/{root}/{settings.STORE_PREFIX}/v1/docs/openapi.json"),
            "theme": ("admin", f"/{root}/{settings.THEME_NS}/v1/docs/openapi.json"),
            "core": ("admin", f"/{root}/{settings.CORE_NS}/v1/docs/openapi.json"),
        }
        for name in self.only:
            actor, url = sources[name]
            response = self.client(actor).get(url)
            if response.status_code != 200:
                raise RecordingError(f"the {name} description: {response.status_code}")
            document = response.json()
            self.documents[name] = document
            self.checkers[name] = SchemaChecker(document)
            # The namespaces' paths are relative to their server; the portal's are whole.
            prefix = document["servers"][0]["url"] if document.get("servers") else ""
            for path, item in document["paths"].items():
                for method, spec in item.items():
                    if method in METHODS:
                        self.operations.append(Operation(name, method.upper(), path, prefix, spec))

    # -- schema helpers --

    def resolve(self, description: str, schema: dict) -> dict:
        """The schema with its $ref followed and an allOf merged (oneOf/anyOf: the first that
        is not null)."""
        document = self.documents[description]
        for _ in range(20):
            if "$ref" in schema:
                name = schema["$ref"].split("/")[-1]
                extra = {k: v for k, v in schema.items() if k != "$ref"}
                schema = {**document["components"]["schemas"][name], **extra}
                continue
            if "allOf" in schema:
                merged = {k: v for k, v in schema.items() if k != "allOf"}
                for part in schema["allOf"]:
                    part = self.resolve(description, part)
                    for key, value in part.items():
                        if key == "properties":
                            merged.setdefault("properties", {}).update(value)
                        elif key == "required":
                            merged["required"] = [*merged.get("required", []), *value]
                        else:
                            merged.setdefault(key, value)
                schema = merged
                continue
            for word in ("oneOf", "anyOf"):
                if word in schema:
                    choices = [c for c in schema[word] if c.get("type") != "null"]
                    extra = {k: v for k, v in schema.items() if k != word}
                    schema = {**(choices[0] if choices else {}), **extra}
                    break
            else:
                return schema
        return schema

    def valid(self, description: str, value: Any, schema: dict) -> bool:
        return self.checkers[description].is_valid(value, schema)

    def operation(self, description: str, key: str) -> Operation | None:
        method, path = key.split(" ", 1)
        for op in self.operations:
            if op.description == description and op.method == method and op.path == path:
                return op
        return None

    # -- calls --

    def url(self, op: Operation, params: dict[str, Any], path: str | None = None) -> str:
        path = path if path is not None else op.path
        for name, value in params.items():
            path = path.replace("{" + name + "}", str(value))
        return op.prefix + path

    def send(self, call: Call) -> Answer:
        client = self.client(call.actor)
        url = call.url
        if call.query:
            url += "?" + urlencode(call.query, doseq=True)
        headers = dict(call.headers)
        for attempt in range(2):
            if call.body is UNSET:
                response = client.generic(call.method, url, headers=headers)
            elif call.media_type == MULTIPART:
                data = dict(call.body)
                for name, (filename, content, content_type) in (call.files or {}).items():
                    upload = io.BytesIO(content)
                    upload.name = filename
                    upload.content_type = content_type
                    data[name] = upload
                from django.test.client import BOUNDARY, encode_multipart

                response = client.generic(
                    call.method,
                    url,
                    encode_multipart(BOUNDARY, data),
                    content_type=MULTIPART_CONTENT,
                    headers=headers,
                )
            else:
                response = client.generic(
                    call.method, url, json.dumps(call.body), content_type=JSON, headers=headers
                )
            if response.status_code == 429 and attempt == 0:
                cache.clear()  # a rate limit or a log-in lock of the run's own calls
                continue
            break
        return self._answer(response)

    def _answer(self, response) -> Answer:
        content_type = response.get("Content-Type", "").split(";")[0].strip()
        if getattr(response, "streaming", False):
            content = b"".join(response.streaming_content)
        else:
            content = response.content
        value: Any = None
        if content and (content_type == JSON or content_type.endswith("+json")):
            try:
                value = json.loads(content)
            except ValueError:
                value = None
        elif content and (
            content_type.startswith("text/")
            or content_type.endswith("xml")
            or content_type.endswith("ndjson")
        ):
            text = content.decode("utf-8", "replace")
            value = text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "\n…"
        return Answer(response.status_code, content_type, value, dict(response.items()))

    def get(self, op: Operation, path: str, params: dict[str, Any], actor: str | None = None):
        """The answer of a GET on a concrete path of op's description (None unless 2xx)."""
        read = self.operation(op.description, f"GET {path}")
        actor = actor or (self.actor_for(read) if read else self.actor_for(op))
        answer = self.send(Call(actor, self.url(op, params, path), "GET"))
        return answer.value if answer.ok else None

    # -- recipes --

    def recipe(self, op: Operation) -> Recipe:
        return self.recipes.get(op.description, {}).get(op.operation_id, Recipe())

    def actor_for(self, op: Operation) -> str:
        return self.recipe(op).actor or self.default_actor(op)

    def evaluate(self, value: Any, *args) -> Any:
        return value(self, *args) if callable(value) else value

    # -- helpers for recipes --

    def outbox_token(self, pattern: str) -> str | None:
        """The last match of `pattern`'s first group in the e-mails sent so far."""
        for message in reversed(mail.outbox):
            texts = [message.body] + [
                alternative[0] for alternative in getattr(message, "alternatives", [])
            ]
            for text in texts:
                found = re.findall(pattern, str(text))
                if found:
                    return found[-1]
        return None

    def value(self, description: str, operation_id: str, *keys: str) -> Any:
        """What a recorded success answer holds at `keys` (first list entries are followed)."""
        entry = self.results[description].get(operation_id)
        if not entry or not entry["responses"]:
            raise RecordingError(f"{operation_id} was not recorded before")
        found: Any = entry["responses"][0]["value"]
        for key in keys:
            while isinstance(found, list) and found:
                found = found[0]
            if not isinstance(found, dict) or key not in found:
                raise RecordingError(f"{operation_id}'s answer has no {'.'.join(keys)}")
            found = found[key]
        return found

    def call_json(self, actor: str, method: str, url: str, body: Any = UNSET) -> Any:
        answer = self.send(Call(actor, url, method, None, body, JSON))
        if not answer.ok:
            raise RecordingError(f"{method} {url}: {answer.status} {answer.value}")
        return answer.value
