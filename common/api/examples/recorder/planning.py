"""Planning an operation's calls: its path parameters (what this run created, else the
collection's list), the success call's body (from the resource itself, else from the request
schema) and the error calls tried until one answers a documented 4xx.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from common.api.examples import JSON
from common.api.examples.recorder.operations import (
    UNKNOWN_ID,
    UNSET,
    Answer,
    Call,
    Operation,
    Recipe,
    RecordingError,
)
from common.api.examples.recorder.session import Session
from common.api.examples.recorder.values import (
    first_item,
    is_id_key,
    patch_subset,
    pick,
    singular,
    string_for,
    wrong_value,
)


class Planner(Session):
    """The calls of an operation: its path parameters, its body, its error calls."""

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
