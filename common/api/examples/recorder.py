"""The recorder behind `manage.py record_api_examples`: one real exchange per operation.

On a database holding the demo data (seed_demo), `Recorder.run()` reads the four OpenAPI
descriptions as they are served, then calls every operation through Django's test client:

- in an order that lets one call feed the next: creations first (so that lists list something),
  then reads of lists and of one resource, updates, actions, and deletions last (the deepest
  paths first), so that an update or a deletion meets what this run created rather than the
  demo's rows;
- as the caller the operation is for: the reseller's bearer token on the portal, the store
  administrator's application password on the REST namespaces, a guest with a cart cookie on
  the cart and checkout, the demo customer on /account;
- with path parameters taken from what this run created, else from the collection's list;
- with outbound calls (a webhook's test ping) answered by a stand-in (`stand_in_network`);
- with a body made from the resource itself where one exists (an update sends the resource's
  own values; a creation copies a listed one, with new names), else from the request schema,
  each field with a value fit for its name and type; `recipes` gives the body, parameters or
  caller where that is not enough.

It keeps the request body, the success answer and one error answer: an invalid body for an
operation that takes one, else an unknown id, else no credentials, else a malformed query
string; the first that answers a documented 4xx. An operation whose success cannot be reached
is reported, not recorded.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import datetime
import io
import json
import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client
from django.test.client import MULTIPART_CONTENT
from django.utils.module_loading import import_string

from common import links
from common.api.examples import DESCRIPTIONS, JSON
from common.api.examples.validation import SchemaChecker

METHODS = ("get", "post", "put", "patch", "delete")
MULTIPART = "multipart/form-data"
#: An id no demo row has: the error example of an operation on one resource.
UNKNOWN_ID = 987654321
#: Arrays in recorded answers are cut to this many entries (the example stays readable).
MAX_ITEMS = 3
#: Text answers (feeds, log downloads) are cut to this many characters, and strings of JSON
#: answers and request bodies to MAX_STRING.
MAX_TEXT = 1500
MAX_STRING = 600
EXAMPLE_HOST = "https://api.example.com"
# The run's phases (`Recipe.phase` places an operation elsewhere): creations first, so that
# lists show what they list; deletions last, the deepest paths first.
FIRST, CREATE, LIST, READ, UPDATE, ACTION, DELETE, LAST = 0, 10, 20, 30, 40, 50, 60, 90
UNSET: Any = object()


# --- Operations ------------------------------------------------------------------------------


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
    #: Called before the success call (prepares what it needs).
    before: Callable[[Recorder], None] | None = None


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


# --- Values ----------------------------------------------------------------------------------


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


# --- The recorder ----------------------------------------------------------------------------


class RecordingError(Exception):
    pass


class Recorder:
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

    # -- the run --

    def recipe(self, op: Operation) -> Recipe:
        return self.recipes.get(op.description, {}).get(op.operation_id, Recipe())

    def actor_for(self, op: Operation) -> str:
        return self.recipe(op).actor or self.default_actor(op)

    def phase(self, op: Operation) -> tuple:
        recipe = self.recipe(op)
        has_params = "{" in op.path
        if recipe.phase is not None:
            phase = recipe.phase
        elif op.method == "POST" and not has_params:
            phase = CREATE
        elif op.method == "GET":
            phase = READ if has_params else LIST
        elif op.method in ("PUT", "PATCH"):
            phase = UPDATE
        elif op.method == "POST":
            phase = ACTION
        else:
            phase = DELETE
        depth = -op.path.count("/") if op.method == "DELETE" else 0
        return (phase, depth)

    def run(self) -> None:
        order = sorted(
            range(len(self.operations)), key=lambda i: (self.phase(self.operations[i]), i)
        )
        for index in order:
            op = self.operations[index]
            try:
                self.record(op)
            except RecordingError as exc:
                self.fail(op, str(exc))
            # A recipe that no longer fits the demo (a product renamed): report it, go on.
            except Exception as exc:  # noqa: BLE001
                self.fail(op, f"{type(exc).__name__}: {exc}")

    def fail(self, op: Operation, why: str) -> None:
        line = f"{op.description} {op.operation_id} ({op.key}): {why}"
        self.failures.append(line)
        self.log(f"  FAILED {line}")

    def evaluate(self, value: Any, *args) -> Any:
        return value(self, *args) if callable(value) else value

    def record(self, op: Operation) -> None:
        recipe = self.recipe(op)
        if recipe.before:
            recipe.before(self)
        params = self.path_params(op, recipe)
        call = self.success_call(op, recipe, params)
        answer = self.send(call)
        if not answer.ok:
            raise RecordingError(
                f"success call answered {answer.status}: {json.dumps(answer.value)[:400]}"
                f" (sent {json.dumps(call.body if call.body is not UNSET else None)[:300]},"
                f" params {params}, query {call.query})"
            )
        entry: dict[str, Any] = {"method": op.method, "path": op.path, "source": "recorded"}
        if call.body is not UNSET:
            shown = call.body
            if call.files:  # a file is shown by its name
                shown = {**shown, **{name: upload[0] for name, upload in call.files.items()}}
            entry["request"] = {
                "media_type": call.media_type,
                "value": shortened_strings(without_local_machine(shown)),
            }
            self.sent[(op.description, op.key)] = (call.body, call.media_type, call.files)
        responses = []
        if answer.value is not None:
            responses.append(self.kept(answer))
        if op.method == "POST" and not op.path.endswith("}"):
            self.created[(op.description, self.url(op, params))] = answer.value
        error = self.error_answer(op, recipe, call, params)
        if error is None:
            self.fail(op, "no documented 4xx answer from any error call")
        else:
            responses.append(self.kept(error))
        entry["responses"] = responses
        self.results[op.description][op.operation_id] = entry
        self.log(
            f"  {op.description:6} {op.key}: {answer.status}"
            + (f", error {error.status}" if error else "")
        )

    def kept(self, answer: Answer) -> dict:
        value = shortened(without_local_machine(answer.value))
        return {"status": answer.status, "media_type": answer.media_type, "value": value}

    # -- path parameters --

    def path_params(self, op: Operation, recipe: Recipe) -> dict[str, Any]:
        params: dict[str, Any] = {}
        for name in op.params:
            if name in recipe.params:
                params[name] = self.evaluate(recipe.params[name], params)
            else:
                params[name] = self.lookup(op, name, params)
            if params[name] is None:
                raise RecordingError(f"no value for the path parameter {name}")
        return params

    @staticmethod
    def candidates(name: str) -> list[str]:
        keys = [name]
        if name.endswith("_id"):
            keys.append("id")
        if name.endswith("_type"):
            keys.append("type")
        keys += ["id", "slug", "code", "key", "type", "name"]
        return list(dict.fromkeys(keys))

    def lookup(self, op: Operation, name: str, params: dict[str, Any]) -> Any:
        collection = op.path[: op.path.index("{" + name + "}")].rstrip("/")
        concrete = self.url(op, params, collection)
        made = self.created.get((op.description, concrete))
        keys = self.candidates(name)
        if made is not None:
            value = pick(made, keys)
            if value is not None:
                return value
        listed = (
            self.get(op, collection, params)
            if self.operation(op.description, f"GET {collection}")
            else None
        )
        if listed is not None:
            return pick(listed, keys)
        return None

    def create(self, description: str, key: str, params: dict[str, Any] | None = None) -> Any:
        """A new resource of the collection `key` ("POST /leave-requests"), made by sending
        the body its recorded creation sent, with new names."""
        params = params or {}
        sent = self.sent.get((description, key))
        if sent is None:
            raise RecordingError(f"{key} was not recorded; nothing to replay")
        body, media_type, files = sent
        target = self.operation(description, key)
        url = self.url(target, params)
        answer = self.send(
            Call(self.actor_for(target), url, "POST", None, self.renamed(body), media_type, files)
        )
        if not answer.ok:
            raise RecordingError(f"replaying {key}: {answer.status} {answer.value}")
        return answer.value

    # -- bodies --

    def success_call(self, op: Operation, recipe: Recipe, params: dict[str, Any]) -> Call:
        actor = self.actor_for(op)
        query = self.evaluate(recipe.query, params) if recipe.query is not None else None
        call = Call(actor, self.url(op, params), op.method, query)
        if op.has_body:
            media_types = op.body_media_types()
            media_type = recipe.media_type or (JSON if JSON in media_types else media_types[0])
            call.media_type = media_type
            if recipe.body is not UNSET:
                call.body = self.evaluate(recipe.body, params)
            else:
                call.body = self.body(op, media_type, params)
            if recipe.files is not None:
                call.files = self.evaluate(recipe.files, params)
        elif recipe.body is not UNSET:
            call.body = self.evaluate(recipe.body, params)
        if callable(recipe.headers):
            call.headers = recipe.headers(self, params, call.body)
        else:
            call.headers = dict(recipe.headers)
        return call

    def source(self, op: Operation, params: dict[str, Any]) -> dict | None:
        """The resource a body can be made from: the one an update changes (its GET), or for
        a creation a listed one of the collection (its detail's GET when there is one)."""
        if op.method in ("PUT", "PATCH") and self.operation(op.description, f"GET {op.path}"):
            found = self.get(op, op.path, params)
            return found if isinstance(found, dict) else None
        if op.method == "POST" and self.operation(op.description, f"GET {op.path}"):
            listed = self.get(op, op.path, params)
            first = first_item(listed)
            if first is None:
                return None
            detail = next(
                (
                    other
                    for other in self.operations
                    if other.description == op.description
                    and other.method == "GET"
                    and re.fullmatch(re.escape(op.path) + r"/\{\w+\}", other.path)
                ),
                None,
            )
            if detail is not None:
                name = detail.params[-1]
                value = pick(first, self.candidates(name))
                if value is not None:
                    found = self.get(detail, detail.path, {**params, name: value})
                    if isinstance(found, dict):
                        return found
            return first
        return None

    def body(self, op: Operation, media_type: str, params: dict[str, Any]) -> Any:
        schema = self.resolve(op.description, op.body_schema(media_type))
        source = self.source(op, params)
        if schema.get("type") == "array":
            return [self.synthesize(op.description, "item", schema.get("items", {}))]
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        body: dict[str, Any] = {}
        if source:
            for name, prop in properties.items():
                value = self.from_source(op.description, name, prop, source)
                if value is not UNSET:
                    body[name] = value
            if op.method == "POST":
                body = self.renamed(body)
        if op.method == "PATCH" and body:
            body = patch_subset(body, required)
        for name in properties:
            if name in required and name not in body:
                body[name] = self.synthesize(op.description, name, properties[name])
        if not body and properties and op.method != "PATCH":
            # nothing required: the first fields, for a body that shows what is sent
            for name in list(properties)[:2]:
                body[name] = self.synthesize(op.description, name, properties[name])
        if not body and op.method == "PATCH" and properties:
            name = next(iter(properties))
            body[name] = self.synthesize(op.description, name, properties[name])
        return body

    def from_source(self, description: str, name: str, schema: dict, source: dict) -> Any:
        if name in source and self.valid(description, source[name], schema):
            return source[name]
        if name.endswith("_id"):
            related = source.get(name[:-3])
            if isinstance(related, dict) and self.valid(description, related.get("id"), schema):
                return related["id"]
        if name.endswith("_ids"):
            for key in (name[:-4] + "s", name[:-4] + "es", name[:-5] + "ies"):
                related = source.get(key)
                if isinstance(related, list) and all(isinstance(r, dict) for r in related):
                    ids = [r.get("id") for r in related]
                    if self.valid(description, ids, schema):
                        return ids
        return UNSET

    def renamed(self, body: Any) -> Any:
        """A creation's body with new values where the old ones must be unique: a name gets
        "(copy)", a code or SKU a number, an e-mail address a +tag; a slug or barcode is left
        for the server to make."""
        if not isinstance(body, dict):
            return body
        copied = copy.deepcopy(body)
        for key in list(copied):
            value = copied[key]
            if not isinstance(value, str) or not value:
                continue
            n = self._copies[(key, value)] = self._copies.get((key, value), 1) + 1
            if key in ("slug", "ean", "barcode", "gtin", "mpn"):
                del copied[key]
            elif key == "email" or key.endswith("_email"):
                local, _, domain = value.partition("@")
                copied[key] = f"{local.split('+')[0]}+{n}@{domain}"
            elif key in ("sku", "code", "number", "reference", "key"):
                copied[key] = f"{value}-{n}"
            elif key in ("name", "title", "label"):
                copied[key] = f"{value} (copy)" if n == 2 else f"{value} (copy {n - 1})"
        return copied

    def synthesize(self, description: str, name: str, schema: dict) -> Any:
        schema = self.resolve(description, schema)
        if "enum" in schema:
            choices = [c for c in schema["enum"] if c not in (None, "")]
            return choices[0] if choices else None
        if "default" in schema and schema["default"] is not None:
            return schema["default"]
        kind = schema.get("type")
        if kind == "boolean":
            return True
        if kind == "integer":
            if is_id_key(name) or name.endswith("_id"):
                found = self.related_id(description, name)
                if found is not None:
                    return found
            if "quantity" in name or "count" in name:
                return max(1, schema.get("minimum", 1))
            return max(1, schema.get("minimum", 1))
        if kind == "number":
            return max(10, schema.get("minimum", 0))
        if kind == "array":
            items = schema.get("items", {})
            count = max(1, schema.get("minItems", 1))
            if name.endswith("_ids"):
                found = self.related_id(description, name[:-1])
                if found is not None:
                    return [found]
            return [self.synthesize(description, singular(name), items) for _ in range(count)]
        if kind == "object" or "properties" in schema:
            required = schema.get("required", [])
            return {
                key: self.synthesize(description, key, prop)
                for key, prop in schema.get("properties", {}).items()
                if key in required
            }
        return string_for(name, schema)

    def related_id(self, description: str, name: str) -> Any:
        """An id for a `<thing>_id` field: the first listed of the collection named after it."""
        base = name[:-3] if name.endswith("_id") else name
        plurals = {base + "s", base + "es", base[:-1] + "ies" if base.endswith("y") else base + "s"}
        document = self.documents[description]
        for plural in plurals:
            for candidate in (plural, plural.replace("_", "-")):
                for path in document["paths"]:
                    if (
                        path.rstrip("/").endswith("/" + candidate)
                        and "get" in document["paths"][path]
                    ):
                        op = self.operation(description, f"GET {path}")
                        if op is None or op.params:
                            continue
                        found = pick(self.get(op, path, {}), ["id"])
                        if found is not None:
                            return found
        return None

    # -- the error answer --

    def error_answer(
        self, op: Operation, recipe: Recipe, call: Call, params: dict[str, Any]
    ) -> Answer | None:
        for attempt in self.error_calls(op, recipe, call, params):
            answer = self.send(attempt)
            if 400 <= answer.status < 500 and op.documents(answer.status) and answer.value:
                return answer
        return None

    def error_calls(self, op: Operation, recipe: Recipe, call: Call, params: dict[str, Any]):
        if recipe.error is not None:
            change = self.evaluate(recipe.error, params)
            changed = copy.copy(call)
            if "params" in change:
                changed.url = self.url(op, {**params, **change["params"]})
            for part in ("actor", "query", "body", "headers", "media_type", "files"):
                if part in change:
                    setattr(changed, part, change[part])
            yield changed
        if call.body is not UNSET and isinstance(call.body, dict) and call.media_type == JSON:
            for broken in self.broken_bodies(op, call):
                yield Call(call.actor, call.url, call.method, call.query, broken, JSON)
        if call.body is not UNSET and isinstance(call.body, list):
            yield Call(call.actor, call.url, call.method, call.query, {"not": "a list"}, JSON)
        for name in reversed(op.params):
            schema = op.param_schema(name)
            unknown = UNKNOWN_ID if schema.get("type") == "integer" else f"no-such-{name}"
            changed = copy.copy(call)
            changed.url = self.url(op, {**params, name: unknown})
            yield changed
        if not op.public and call.actor != "anonymous":
            changed = copy.copy(call)
            changed.actor = "anonymous"
            yield changed
        for parameter in op.spec.get("parameters", []):
            if parameter.get("in") != "query":
                continue
            wrong = wrong_value(self.resolve(op.description, parameter.get("schema", {})))
            if isinstance(wrong, str):
                changed = copy.copy(call)
                changed.query = {**(call.query or {}), parameter["name"]: wrong}
                yield changed
                break
        changed = copy.copy(call)
        changed.query = {**(call.query or {}), "page": "\x00"}
        yield changed

    def broken_bodies(self, op: Operation, call: Call):
        """The body with a required field left out; with a value of the wrong kind; empty."""
        schema = self.resolve(op.description, op.body_schema(JSON))
        properties = schema.get("properties", {})
        for name in call.body:
            if name in schema.get("required", []):
                yield {key: value for key, value in call.body.items() if key != name}
                break
        names = [n for n in call.body if n in properties] or list(properties)
        for name in names:
            wrong = wrong_value(self.resolve(op.description, properties[name]))
            if wrong is not UNSET:
                yield {**call.body, name: wrong}
                break
        yield {}

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


# --- The outside world ---------------------------------------------------------------------


#: The address every host name resolves to during a run (a public one: the outbound checks
#: pass), and the answer every outbound request gets.
STAND_IN_ADDRESS = "93.184.215.14"
STAND_IN_ANSWER = b'{"received": true}'


@contextlib.contextmanager
def stand_in_network():
    """Outbound calls of the run (a webhook's test ping, a check of its URL) reach a stand-in
    receiver that answers 200 to everything: nothing leaves the machine, and the examples show
    a receiver that works."""
    import ipaddress

    import requests

    from common import net

    def resolve(host: str, port: int):
        return [ipaddress.ip_address(STAND_IN_ADDRESS)]

    def hop(session, request, watch, connect, kwargs):
        response = requests.Response()
        response.status_code = 200
        response.headers["Content-Type"] = JSON
        response._content = STAND_IN_ANSWER
        response._content_consumed = True
        response.url = request.url
        response.request = request
        response.elapsed = datetime.timedelta(milliseconds=42)
        return response

    original_resolve, original_hop = net.resolve, net.GuardedSession._hop
    net.resolve, net.GuardedSession._hop = resolve, hop
    try:
        yield
    finally:
        net.resolve, net.GuardedSession._hop = original_resolve, original_hop
        net.close_sessions()


# --- Plain helpers ---------------------------------------------------------------------------


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
