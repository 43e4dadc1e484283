"""A timed HTTP loop for the scale test: each case's requests interleaved one by one with its
floor's on one connection, and what the server spent on each (CPU of the gunicorn workers and
of the database's backends, read from /proc).

Why not wrk here: a scale case is slow and varied (a report, a streamed list of 100,000 rows,
a filtered catalog page), and what it must show is how its cost grows with the data, not a
queue. One request at a time, floor and case alternating request by request (case first on
every other pair), gives each its own service time under the same machine state, seconds (not
minutes) apart; the ratio of the medians is the figure. The CPU is per request: the sum over
the server's worker processes (and over the PostgreSQL backends serving its database) of
/proc/<pid>/schedstat's time on CPU (nanoseconds), read before and after each request.

The parts that read no process are pure (tests/bench guards them): pairing, the summaries,
the flat ratio of two sizes.
"""

from __future__ import annotations

import http.client
import os
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from bench.harness.cases import FLOOR_PATHS


@dataclass
class HttpCase:
    """One scale case: a request (GET unless said), its goal, and what it is summarised as.

    goal_p50: ceiling of (case p50 / F-pk p50) at the size measured;
    goal_flat: ceiling of the flat ratio (cost at the big size over the small, each over its
    own floor) for a case measured at two sizes;
    goal_mib: ceiling of a worker's peak memory growth over the case's requests;
    summary: the row of bench/results.md's summary table this case counts for (the worst of
    its cases)."""

    label: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    method: str = "GET"
    goal_p50: float | None = None
    goal_flat: float | None = None
    goal_mib: float | None = None
    summary: str | None = None
    expect_status: int = 200

    def formatted(self, ctx: dict) -> HttpCase:
        return HttpCase(
            label=self.label,
            path=self.path.format(**ctx),
            headers={k: v.format(**ctx) for k, v in self.headers.items()},
            method=self.method,
            goal_p50=self.goal_p50,
            goal_flat=self.goal_flat,
            goal_mib=self.goal_mib,
            summary=self.summary,
            expect_status=self.expect_status,
        )


FLOOR = HttpCase("F-pk", FLOOR_PATHS["pk"][1])


# --- Processes -----------------------------------------------------------------------------


def children(pid: int) -> list[int]:
    """The child processes of `pid` (gunicorn's workers of its master)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as file:
            return [int(p) for p in file.read().split()]
    except OSError:
        pass
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def cpu_ns(pids: Iterable[int]) -> int:
    """Nanoseconds on CPU of the processes (user and system), summed; a process gone counts 0."""
    return sum(cpu_each(pids).values())


def cpu_each(pids: Iterable[int]) -> dict[int, int]:
    """Each readable process's nanoseconds on CPU (/proc/<pid>/schedstat)."""
    out = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/schedstat") as file:
                out[pid] = int(file.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return out


def cpu_spent_ms(before: dict[int, int], after: dict[int, int]) -> float:
    """What the processes alive at both readings spent between them (ms): a database backend
    that closed meanwhile (the connection's age ran out) is left out, not counted negative."""
    return sum(max(0, after[pid] - spent) for pid, spent in before.items() if pid in after) / 1e6


def _status_line(pid: int, key: str) -> int:
    """A kB figure of /proc/<pid>/status (VmRSS, VmHWM); 0 when unreadable."""
    try:
        with open(f"/proc/{pid}/status") as file:
            for line in file:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def reset_peak(pids: Iterable[int]) -> dict[int, int]:
    """Each process's resident size now (kB), its peak (VmHWM) reset to it."""
    now = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/clear_refs", "w") as file:
                file.write("5")
        except OSError:
            pass
        now[pid] = _status_line(pid, "VmRSS")
    return now


def peak_growth_mib(before: dict[int, int]) -> float:
    """The most any process grew past its resident size in `before` (MiB, peak RSS)."""
    grown = [max(0, _status_line(pid, "VmHWM") - rss) for pid, rss in before.items()]
    return max(grown, default=0) / 1024


def _busy(pids: Iterable[int]) -> bool:
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as file:
                if file.read().rsplit(")", 1)[1].split()[0] == "R":
                    return True
        except OSError:
            continue
    return False


def wait_idle(pids: list[int], limit: float = 0.02) -> None:
    """Until no worker is running (its work after the answer: closing, hooks), at most
    `limit` seconds: that work is the request's, not the next one's."""
    deadline = time.perf_counter() + limit
    while _busy(pids) and time.perf_counter() < deadline:
        time.sleep(0.0005)


# --- Requests ------------------------------------------------------------------------------


def request(port: int, case: HttpCase, timeout: float = 120.0) -> tuple[int, float, int]:
    """One request, the answer read to its end: (status, wall ms, bytes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        started = time.perf_counter()
        conn.request(case.method, case.path, headers={**case.headers, "Connection": "close"})
        answer = conn.getresponse()
        size = 0
        while chunk := answer.read(65536):
            size += len(chunk)
        return answer.status, (time.perf_counter() - started) * 1000, size
    finally:
        conn.close()


@dataclass
class Server:
    """A running bench server: its port, gunicorn's master pid and the database whose
    backends count (`backends()` answers their pids; empty when unknown)."""

    port: int
    master: int
    backends: Callable[[], list[int]] = lambda: []

    def pids(self) -> tuple[list[int], list[int]]:
        return children(self.master), self.backends()


def sample(server: Server, case: HttpCase, workers: list[int], backends: list[int]) -> dict:
    """One request with the CPU it cost the workers and the backends."""
    wait_idle(workers)
    app_before, db_before = cpu_each(workers), cpu_each(backends)
    status, wall_ms, size = request(server.port, case)
    wait_idle(workers)
    return {
        "status": status,
        "wall_ms": wall_ms,
        "bytes": size,
        "cpu_ms": cpu_spent_ms(app_before, cpu_each(workers)),
        "db_cpu_ms": cpu_spent_ms(db_before, cpu_each(backends)),
    }


def measure_pairs(
    server: Server, case: HttpCase, *, seconds: float, min_pairs: int = 3, max_pairs: int = 500
) -> dict:
    """The case and the floor alternating (case first on odd pairs) for `seconds` (at least
    `min_pairs`, at most `max_pairs` pairs): {"case": summary, "floor": summary}."""
    workers, backends = server.pids()
    peak = reset_peak(workers)
    taken: dict[str, list[dict]] = {"case": [], "floor": []}
    deadline = time.perf_counter() + seconds
    pair = 0
    while pair < max_pairs and (pair < min_pairs or time.perf_counter() < deadline):
        order = (
            (("floor", FLOOR), ("case", case))
            if pair % 2 == 0
            else (
                ("case", case),
                ("floor", FLOOR),
            )
        )
        for role, which in order:
            taken[role].append(sample(server, which, workers, backends))
        pair += 1
    out = {
        "case": summarise(taken["case"], case.expect_status),
        "floor": summarise(taken["floor"], 200),
    }
    out["case"]["peak_growth_mib"] = peak_growth_mib(peak)
    return out


def summarise(samples: list[dict], expect_status: int) -> dict:
    """A sample list's count, p50/p90 wall ms, mean CPU ms (workers, backends), bytes and the
    statuses that were not expected."""
    walls = sorted(s["wall_ms"] for s in samples)
    bad: dict[str, int] = {}
    for s in samples:
        if s["status"] != expect_status:
            bad[str(s["status"])] = bad.get(str(s["status"]), 0) + 1
    return {
        "n": len(samples),
        "p50_ms": statistics.median(walls) if walls else 0.0,
        "p90_ms": walls[min(len(walls) - 1, int(len(walls) * 0.9))] if walls else 0.0,
        "cpu_ms": statistics.fmean(s["cpu_ms"] for s in samples) if samples else 0.0,
        "db_cpu_ms": statistics.fmean(s["db_cpu_ms"] for s in samples) if samples else 0.0,
        "bytes": samples[-1]["bytes"] if samples else 0,
        "bad": bad,
    }


# --- Rounds --------------------------------------------------------------------------------


def spread(values: Iterable[float]) -> dict:
    values = list(values)
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def ratio_round(measured: dict) -> dict:
    """One round's figures of a case at one size: p50 over the floor's, CPU per request."""
    case, floor = measured["case"], measured["floor"]
    return {
        "p50_ratio": case["p50_ms"] / floor["p50_ms"] if floor["p50_ms"] else float("inf"),
        "cpu_ms": case["cpu_ms"],
        "db_cpu_ms": case["db_cpu_ms"],
        # the server's whole CPU (workers and database backends) over the floor's
        "cpu_ratio": (case["cpu_ms"] + case["db_cpu_ms"]) / (floor["cpu_ms"] + floor["db_cpu_ms"])
        if floor["cpu_ms"] + floor["db_cpu_ms"]
        else float("inf"),
        "case_p50_ms": case["p50_ms"],
        "floor_p50_ms": floor["p50_ms"],
        "floor_cpu_ms": floor["cpu_ms"],
        "bytes": case["bytes"],
        "peak_growth_mib": case.get("peak_growth_mib", 0.0),
        "bad": {**case["bad"], **{f"floor {k}": v for k, v in floor["bad"].items()}},
    }


def summarise_rounds(rounds: list[dict]) -> dict:
    """Median (min-max) over the rounds of each figure of ratio_round."""
    keys = ("p50_ratio", "cpu_ms", "db_cpu_ms", "cpu_ratio", "case_p50_ms", "floor_p50_ms")
    out = {key: spread(r[key] for r in rounds) for key in keys}
    out["peak_growth_mib"] = max(r["peak_growth_mib"] for r in rounds)
    out["bytes"] = rounds[-1]["bytes"]
    return out


def refused(rounds: list[dict]) -> str | None:
    """Why a case's figures cannot count (a request answered another status), or None."""
    bad: dict[str, int] = {}
    for r in rounds:
        for key, count in r["bad"].items():
            bad[key] = bad.get(key, 0) + count
    return f"refused: unexpected statuses {bad}" if bad else None


def flat_round(small: dict, big: dict) -> dict:
    """One round's flat ratios: the case's p50 (and CPU) over its floor's at the big size,
    divided by the same at the small size."""
    return {
        "flat_ratio": big["p50_ratio"] / small["p50_ratio"],
        "cpu_flat_ratio": big["cpu_ratio"] / small["cpu_ratio"],
    }


def verdict(summary: dict, case: HttpCase) -> bool | None:
    """Whether every goal of the case holds for the medians; None without a goal."""
    checks = []
    if case.goal_p50 is not None and "p50_ratio" in summary:
        checks.append(summary["p50_ratio"]["median"] <= case.goal_p50)
    if case.goal_flat is not None and "flat_ratio" in summary:
        checks.append(summary["flat_ratio"]["median"] <= case.goal_flat)
    if case.goal_mib is not None and "peak_growth_mib" in summary:
        checks.append(summary["peak_growth_mib"] <= case.goal_mib)
    return all(checks) if checks else None


def goal_words(case: HttpCase) -> str:
    parts = []
    if case.goal_p50 is not None:
        parts.append(f"p50 ≤ {case.goal_p50:g}x F-pk")
    if case.goal_flat is not None:
        parts.append(f"big/small ≤ {case.goal_flat:g}x")
    if case.goal_mib is not None:
        parts.append(f"peak RSS growth ≤ {case.goal_mib:g} MiB")
    return ", ".join(parts) or "—"
