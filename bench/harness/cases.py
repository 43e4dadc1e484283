"""A bench's cases and what wrk runs and answers: the Lua script (the request, the case's own
script, the harness's hooks counting statuses) and the measurement read from wrk's output.
These parts are pure (tests/bench guards them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

FLOOR_PATHS = {"pk": ("GET", "/bench/floor/pk"), "pkw": ("POST", "/bench/floor/pkw")}

RESULT_MARK = "BENCH_RESULT "


@dataclass
class Case:
    name: str
    method: str = "GET"
    path: str = "/"
    body: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    floor: str = "pk"
    goal_p50: float | None = None
    goal_p99: float | None = None
    lua: str | None = None
    # One status, or several (a script walking routes that answer 200 and 201).
    expect_status: int | tuple[int, ...] = 200

    def __post_init__(self) -> None:
        if self.floor not in FLOOR_PATHS:
            raise ValueError(f"case {self.name!r}: floor must be one of {sorted(FLOOR_PATHS)}")

    def formatted(self, ctx: dict) -> Case:
        """The case with str.format(**ctx) applied to path, body, headers and lua."""
        return Case(
            name=self.name,
            method=self.method,
            path=self.path.format(**ctx),
            body=None if self.body is None else self.body.format(**ctx),
            headers={k: v.format(**ctx) for k, v in self.headers.items()},
            floor=self.floor,
            goal_p50=self.goal_p50,
            goal_p99=self.goal_p99,
            lua=None if self.lua is None else self.lua.format(**ctx),
            expect_status=self.expect_status,
        )


def lua_string(value: str) -> str:
    """A Lua (5.1/LuaJIT) string literal for value."""
    out = []
    for char in value:
        if char in '\\"':
            out.append("\\" + char)
        elif ord(char) < 32 or ord(char) == 127:
            out.append(f"\\{ord(char):03d}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def expected_statuses(expect_status: int | Iterable[int]) -> tuple[int, ...]:
    """A case's expected status(es) as a tuple."""
    if isinstance(expect_status, int):
        return (expect_status,)
    return tuple(int(status) for status in expect_status)


def expected_text(expect_status: int | Iterable[int]) -> str:
    """`200` or `200/201`."""
    return "/".join(str(status) for status in expected_statuses(expect_status))


def wrk_script(
    *,
    method: str,
    body: str | None,
    headers: dict[str, str],
    expect_status: int | tuple[int, ...],
    user_lua: str | None = None,
) -> str:
    """The Lua script given to wrk: the request, the case's own script (which may define init,
    request, setup, response, and count its own events in `bench_counts[name]`), then the
    harness's hooks counting statuses and printing the result line (RESULT_MARK + JSON) from
    `done`."""
    lines = [f"wrk.method = {lua_string(method)}"]
    if body is not None:
        lines.append(f"wrk.body = {lua_string(body)}")
    for name, value in headers.items():
        lines.append(f"wrk.headers[{lua_string(name)}] = {lua_string(value)}")
    if user_lua:
        lines += ["", "-- the case's script", user_lua, ""]
    expect_lua = ", ".join(f"[{status}] = true" for status in expected_statuses(expect_status))
    lines.append(
        f"""
-- the harness's hooks
local bench_expect = {{{expect_lua}}}
local bench_threads = {{}}
local bench_user_setup = setup
local bench_user_response = response
bench_ok = 0
bench_bad = 0
bench_statuses = {{}}
bench_counts = {{}}

function setup(thread)
  table.insert(bench_threads, thread)
  if bench_user_setup then bench_user_setup(thread) end
end

function response(status, headers, body)
  if bench_expect[status] then
    bench_ok = bench_ok + 1
  else
    bench_bad = bench_bad + 1
    local key = tostring(status)
    bench_statuses[key] = (bench_statuses[key] or 0) + 1
  end
  if bench_user_response then bench_user_response(status, headers, body) end
end

function done(summary, latency, requests)
  local ok, bad, statuses, counts = 0, 0, {{}}, {{}}
  for _, thread in ipairs(bench_threads) do
    ok = ok + thread:get("bench_ok")
    bad = bad + thread:get("bench_bad")
    for key, count in pairs(thread:get("bench_statuses")) do
      statuses[key] = (statuses[key] or 0) + count
    end
    for key, count in pairs(thread:get("bench_counts") or {{}}) do
      counts[key] = (counts[key] or 0) + count
    end
  end
  local parts, count_parts = {{}}, {{}}
  for key, count in pairs(statuses) do
    table.insert(parts, string.format('"%s":%d', key, count))
  end
  for key, count in pairs(counts) do
    table.insert(count_parts, string.format('"%s":%d', key, count))
  end
  local e = summary.errors
  io.write(string.format(
    '{RESULT_MARK}{{"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,'
    .. '"mean_us":%.1f,"max_us":%d,"ok":%d,"bad":%d,"statuses":{{%s}},'
    .. '"errors":{{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}},'
    .. '"counts":{{%s}}}}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, latency.max, ok, bad, table.concat(parts, ","),
    e.connect, e.read, e.write, e.status, e.timeout, table.concat(count_parts, ",")))
end
"""
    )
    return "\n".join(lines)


_UNITS_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _duration_ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS_MS[match.group(2)]


def parse_wrk_output(text: str) -> dict:
    """One measurement from wrk's output: the harness's result line when present, else wrk's
    own text (`--latency` distribution, Requests/sec, Non-2xx, socket errors).

    Answers {"requests", "seconds", "rps", "p50_ms", "p90_ms", "p99_ms", "ok", "bad",
    "statuses", "errors", "counts"} (counts: the case script's `bench_counts`); with the text
    fallback, ok/bad come from the Non-2xx line and there are no counts."""
    for line in text.splitlines():
        if line.startswith(RESULT_MARK):
            raw = json.loads(line[len(RESULT_MARK) :])
            seconds = raw["duration_us"] / 1e6
            return {
                "requests": raw["requests"],
                "seconds": seconds,
                "rps": raw["requests"] / seconds if seconds else 0.0,
                "p50_ms": raw["p50_us"] / 1000,
                "p90_ms": raw["p90_us"] / 1000,
                "p99_ms": raw["p99_us"] / 1000,
                "mean_ms": raw["mean_us"] / 1000,
                "max_ms": raw["max_us"] / 1000,
                "ok": raw["ok"],
                "bad": raw["bad"],
                "statuses": raw["statuses"],
                "errors": raw["errors"],
                "counts": raw.get("counts", {}),
            }
    percentiles = {
        int(m.group(1)): _duration_ms(m.group(2))
        for m in re.finditer(r"^\s+(50|90|99)%\s+([\d.]+(?:us|ms|s|m))\s*$", text, re.M)
    }
    requests = re.search(r"^\s*(\d+) requests in ", text, re.M)
    rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    if not (requests and rps and {50, 99} <= percentiles.keys()):
        raise ValueError("wrk output has neither the result line nor --latency percentiles")
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    errors = {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0}
    socket = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text
    )
    if socket:
        names = ("connect", "read", "write", "timeout")
        for key, value in zip(names, socket.groups(), strict=True):
            errors[key] = int(value)
    count = int(requests.group(1))
    bad = int(non_2xx.group(1)) if non_2xx else 0
    errors["status"] = bad
    return {
        "requests": count,
        "seconds": count / float(rps.group(1)) if float(rps.group(1)) else 0.0,
        "rps": float(rps.group(1)),
        "p50_ms": percentiles[50],
        "p90_ms": percentiles.get(90, percentiles[99]),
        "p99_ms": percentiles[99],
        "ok": count - bad,
        "bad": bad,
        "statuses": {},
        "errors": errors,
        "counts": {},
    }
