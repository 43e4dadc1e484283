"""The run (`Recorder.run()`, called by `manage.py record_api_examples`): every operation in
the order that lets one call feed the next, each recorded with its request body, success
answer and error answer; outbound calls answered by a stand-in meanwhile.
"""

from __future__ import annotations

import contextlib
import datetime
import json
from typing import Any

from common.api.examples import JSON
from common.api.examples.recorder.operations import (
    ACTION,
    CREATE,
    DELETE,
    LIST,
    READ,
    UNSET,
    UPDATE,
    Answer,
    Operation,
    RecordingError,
)
from common.api.examples.recorder.planning import Planner
from common.api.examples.recorder.values import shortened, shortened_strings, without_local_machine


class Recorder(Planner):
    """The recorder: `setup_callers()`, `load_descriptions()`, then `run()`."""

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
