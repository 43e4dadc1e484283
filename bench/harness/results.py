"""What a bench's rounds come to: the ratios of each case over its floor (median, min-max),
the goals' verdicts, a case refused for its bad answers, the console table and
bench/results.md. These parts are pure but for the files (tests/bench guards them).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import statistics
from collections.abc import Iterable
from pathlib import Path

from bench.harness.cases import Case, expected_text
from bench.harness.environment import OUT_DIR, RESULTS_MD, git_commit

# A case whose share of unexpected answers (statuses or socket errors) exceeds this is refused.
MAX_BAD_SHARE = 0.05


def bad_share(measurement: dict) -> float:
    """The share of requests that did not get the expected status or failed on the socket."""
    socket_errors = sum(v for k, v in measurement["errors"].items() if k != "status")
    total = measurement["ok"] + measurement["bad"] + socket_errors
    return (measurement["bad"] + socket_errors) / total if total else 1.0


def spread(values: Iterable[float]) -> dict:
    """{"median", "min", "max"} of values."""
    values = list(values)
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def fmt_spread(value: dict | None, digits: int = 2) -> str:
    """`1.23x (1.10-1.40)`."""
    if not value:
        return "—"
    return f"{value['median']:.{digits}f}x ({value['min']:.{digits}f}-{value['max']:.{digits}f})"


def summarise_case(case: Case, rounds: list[dict]) -> dict:
    """The ratios of a case over its rounds ({"floor": m, "case": m} measurements), its goal
    verdict, or the reason it is refused."""
    summary = {
        "case": case.name,
        "method": case.method,
        "path": case.path,
        "floor": case.floor,
        "goal_p50": case.goal_p50,
        "goal_p99": case.goal_p99,
        "expect_status": case.expect_status,
        "rounds": rounds,
        "error": None,
    }
    shares = [bad_share(r["case"]) for r in rounds]
    floor_shares = [bad_share(r["floor"]) for r in rounds]
    if not rounds:
        summary["error"] = "no rounds"
    elif max(shares) > MAX_BAD_SHARE:
        statuses: dict[str, int] = {}
        for r in rounds:
            for key, count in r["case"]["statuses"].items():
                statuses[key] = statuses.get(key, 0) + count
        summary["error"] = (
            f"refused: {max(shares):.0%} of the answers were not "
            f"{expected_text(case.expect_status)} "
            f"(unexpected statuses {statuses or '-'}, socket errors counted)"
        )
    elif max(floor_shares) > MAX_BAD_SHARE:
        summary["error"] = f"refused: the floor failed {max(floor_shares):.0%} of its requests"
    if summary["error"]:
        summary.update(p50_ratio=None, p99_ratio=None, throughput_ratio=None, passed=False)
        return summary
    summary["p50_ratio"] = spread(r["case"]["p50_ms"] / r["floor"]["p50_ms"] for r in rounds)
    summary["p99_ratio"] = spread(r["case"]["p99_ms"] / r["floor"]["p99_ms"] for r in rounds)
    summary["throughput_ratio"] = spread(r["floor"]["rps"] / r["case"]["rps"] for r in rounds)
    summary["floor_rps"] = spread(r["floor"]["rps"] for r in rounds)
    summary["case_rps"] = spread(r["case"]["rps"] for r in rounds)
    summary["case_p50_ms"] = spread(r["case"]["p50_ms"] for r in rounds)
    summary["case_p99_ms"] = spread(r["case"]["p99_ms"] for r in rounds)
    summary["floor_p50_ms"] = spread(r["floor"]["p50_ms"] for r in rounds)
    summary["floor_p99_ms"] = spread(r["floor"]["p99_ms"] for r in rounds)
    summary["counts_per_s"] = counts_per_second(rounds)
    summary["warning"] = (
        f"{max(shares):.1%} of the answers were not {expected_text(case.expect_status)}"
        if max(shares)
        else None
    )
    summary["passed"] = goal_passed(case, summary)
    return summary


def counts_per_second(rounds: list[dict]) -> dict[str, dict]:
    """{name: spread of the case's `bench_counts[name]` per second} over the rounds (a name
    missing from a round counts 0 there); {} when the case's script counts nothing."""
    names = sorted({name for r in rounds for name in r["case"].get("counts") or {}})
    out = {}
    for name in names:
        rates = []
        for r in rounds:
            m = r["case"]
            seconds = m.get("seconds") or (m["requests"] / m["rps"] if m["rps"] else 0.0)
            count = (m.get("counts") or {}).get(name, 0)
            rates.append(count / seconds if seconds else 0.0)
        out[name] = spread(rates)
    return out


def rates_text(counts_per_s: dict[str, dict] | None) -> str:
    """`complete 15.2/s (14.0-16.1), start 15.9/s (...)`."""
    return ", ".join(
        f"{name} {v['median']:.1f}/s ({v['min']:.1f}-{v['max']:.1f})"
        for name, v in (counts_per_s or {}).items()
    )


def goal_passed(case: Case, summary: dict) -> bool | None:
    """True when every goal holds for the median ratio; None when the case has no goal."""
    checks = []
    if case.goal_p50 is not None:
        checks.append(summary["p50_ratio"]["median"] <= case.goal_p50)
    if case.goal_p99 is not None:
        checks.append(summary["p99_ratio"]["median"] <= case.goal_p99)
    return all(checks) if checks else None


def goal_text(goal_p50: float | None, goal_p99: float | None) -> str:
    parts = []
    if goal_p50 is not None:
        parts.append(f"p50 ≤ {goal_p50:g}x")
    if goal_p99 is not None:
        parts.append(f"p99 ≤ {goal_p99:g}x")
    return ", ".join(parts) or "—"


def pass_text(passed: bool | None, error: str | None = None) -> str:
    if error:
        return "ERROR"
    return {True: "pass", False: "FAIL", None: "—"}[passed]


def case_table(summaries: list[dict]) -> str:
    """The console table of a bench's cases."""
    header = (
        f"{'case':<22}{'floor':<6}{'p50 ratio':<22}{'p99 ratio':<22}"
        f"{'rps floor/case':<22}{'goal':<22}{'pass'}"
    )
    lines = [header, "-" * len(header)]
    for s in summaries:
        if s["error"]:
            lines.append(f"{s['case']:<22}{s['floor']:<6}{s['error']}")
            continue
        lines.append(
            f"{s['case']:<22}{s['floor']:<6}{fmt_spread(s['p50_ratio']):<22}"
            f"{fmt_spread(s['p99_ratio']):<22}{fmt_spread(s['throughput_ratio']):<22}"
            f"{goal_text(s['goal_p50'], s['goal_p99']):<22}{pass_text(s['passed'])}"
        )
    return "\n".join(lines)


def write_results(
    out_dir: Path = OUT_DIR,
    path: Path = RESULTS_MD,
    *,
    date: str | None = None,
    commit: str | None = None,
    cores: int | None = None,
    failures: dict[str, str] | None = None,
) -> str:
    """bench/results.md from the bench/out/*.json files (benches, then the scale test)."""
    date = date or dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commit = commit or git_commit()
    cores = cores or os.cpu_count()
    benches, scale = [], None
    for file in sorted(Path(out_dir).glob("*.json")):
        data = json.loads(file.read_text())
        if data.get("kind") == "scale":
            scale = data
        else:
            benches.append(data)
    lines = [
        "# Benchmark results",
        "",
        f"- date: {date}",
        f"- commit: {commit}",
        f"- machine: {cores} cores (server and load generator share them)",
        "",
        "Ratios are case over floor, measured in the same round; median (min-max) over the "
        "rounds. Floors: F-pk (one indexed lookup by primary key) for reads, F-pkw "
        "(select_for_update + update of one row) for writes. See bench/README.md.",
        "",
        "| bench | case | floor | p50 ratio | p99 ratio | goal | pass |",
        "|---|---|---|---|---|---|---|",
    ]
    for bench in benches:
        run = bench.get("run", {})
        for s in bench["cases"]:
            if s.get("error"):
                lines.append(
                    f"| {bench['bench']} | {s['case']} | F-{s['floor']} | — | — | "
                    f"{goal_text(s['goal_p50'], s['goal_p99'])} | ERROR: {s['error']} |"
                )
                continue
            lines.append(
                f"| {bench['bench']} | {s['case']} | F-{s['floor']} | "
                f"{fmt_spread(s['p50_ratio'])} | {fmt_spread(s['p99_ratio'])} | "
                f"{goal_text(s['goal_p50'], s['goal_p99'])} | {pass_text(s['passed'])} |"
            )
        if run:
            lines.append(
                f"| | *{bench['bench']}: {run.get('rounds')} rounds x {run.get('seconds')} s, "
                f"{run.get('connections')} connections, {run.get('workers')} workers, "
                f"commit {bench.get('commit', '?')}* | | | | | |"
            )
        for s in bench["cases"]:
            if s.get("counts_per_s") and not s.get("error"):
                lines.append(f"| | *{s['case']}: {rates_text(s['counts_per_s'])}* | | | | | |")
        for note in bench.get("notes") or []:
            lines.append(f"| | *{note}* | | | | | |")
    if scale:
        lines += [
            "",
            f"## Scale ({scale['sizes_text']})" if scale.get("sizes_text") else "## Scale",
            "",
            "| label | ms | goal ms | pass |",
            "|---|---|---|---|",
        ]
        for row in scale["rows"]:
            lines.append(
                f"| {row['label']} | {row['ms']:.1f} | {row['goal_ms']:g} | "
                f"{pass_text(row['ms'] <= row['goal_ms'])} |"
            )
        for module, error in (scale.get("errors") or {}).items():
            lines.append(f"| {module} | — | — | ERROR: {error} |")
    if failures:
        lines += ["", "## Not run, or failed", ""]
        lines += [f"- {name}: {reason}" for name, reason in failures.items()]
    text = "\n".join(lines) + "\n"
    Path(path).write_text(text)
    return text
