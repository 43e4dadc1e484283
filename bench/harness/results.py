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


# bench/results.md's names of the cases the goals speak of: (bench, case) -> label.
LABELS = {
    ("orders", "status_change"): "status change",
    ("orders", "status_change_cancel"): "status change (cancel)",
    ("orders", "status_change_reopen"): "status change (reopen)",
    ("orders", "status_change_contention"): "status change (contention)",
    ("store", "product_cold"): "cold product",
    ("store", "list_100_cold"): "cold list",
    ("webhooks", "webhooks, 1 worker"): "webhooks, 1 worker",
    ("webhooks", "webhooks, 2 workers"): "webhooks, 2 workers",
}
# The summary table's rows, in order: a bench case's label (LABELS) or a flat scale case's
# summary name (bench/scale_reports.py, bench/scale_erp.py: the worst of its cases).
SUMMARY_ROWS = (
    "status change (cancel)",
    "status change (reopen)",
    "status change (contention)",
    "cold product",
    "cold list",
    "dashboard",
    "orders stats",
    "customers stats",
    "customers-with-stats",
    "trial balance",
    "profit-loss",
    "balance sheet",
    "rfm",
    "stock stats",
    "stock levels",
    "webhooks, 1 worker",
    "webhooks, 2 workers",
)


def label_of(bench: str, case: str) -> str:
    return LABELS.get((bench, case), case)


def _case_goal(s: dict) -> str:
    if s.get("goal_text"):
        return s["goal_text"]
    goal = goal_text(s.get("goal_p50"), s.get("goal_p99"))
    return goal if goal == "—" else f"{goal} F-{s.get('floor', 'pk')}"


def summary_rows(benches: list[dict], scale: dict | None) -> list[tuple[str, str, str, str]]:
    """(row, goal, measured, pass) for each of SUMMARY_ROWS; "not measured" when no bench of
    the run measured it."""
    found: dict[str, tuple[str, str, str]] = {}
    for bench in benches:
        for s in bench["cases"]:
            label = label_of(bench["bench"], s["case"])
            if label not in SUMMARY_ROWS:
                continue
            if s.get("error"):
                found[label] = (_case_goal(s), "—", f"ERROR: {s['error']}")
                continue
            if s.get("p50_plus_worker_ratio"):  # the status change: the worker's share counts
                found[label] = (
                    f"(p50 + worker CPU) ≤ {s['goal_p50']:g}x F-{s.get('floor', 'pk')}",
                    f"{fmt_spread(s['p50_plus_worker_ratio'])}; request alone "
                    f"{fmt_spread(s['p50_ratio'])}, worker "
                    f"{s['worker_ms_per_request']['median']:.1f} ms a request",
                    pass_text(s.get("p50_plus_worker_passed")),
                )
                continue
            found[label] = (
                _case_goal(s),
                f"{fmt_spread(s['p50_ratio'])}",
                pass_text(s.get("passed")),
            )
        contention = bench.get("contention")  # bench_orders: not a case, a figure of its own
        if bench["bench"] == "orders" and isinstance(contention, dict):
            label = LABELS[("orders", "status_change_contention")]
            if label not in found and contention.get("ratio"):
                error = contention.get("bad_share", 0) > MAX_BAD_SHARE
                found[label] = (
                    f"p50 at 8 connections ≤ {contention.get('goal', 0):g}x at 1",
                    fmt_spread(contention["ratio"]),
                    "ERROR: unexpected answers" if error else pass_text(contention.get("passed")),
                )
    flat = [r for r in (scale or {}).get("rows", []) if r.get("part") == "flat"]
    for name in SUMMARY_ROWS:
        rows = [r for r in flat if r.get("summary") == name]
        if not rows or name in found:
            continue
        broken = [r for r in rows if r.get("error")]
        if broken:
            found[name] = (rows[0]["goal"], "—", f"ERROR: {broken[0]['error']}")
            continue
        worst = max(rows, key=lambda r: r["flat_ratio"]["median"])
        passed = [r.get("passed") for r in rows]
        verdict = None if all(p is None for p in passed) else all(p is not False for p in passed)
        found[name] = (
            f"{worst['goal']} ({worst['sizes'][1]:,} vs {worst['sizes'][0]:,}, each over F-pk)",
            f"{fmt_spread(worst['flat_ratio'])}, worst of {len(rows)}: {worst['label']}",
            pass_text(verdict),
        )
    return [(name, *found.get(name, ("—", "not measured", "—"))) for name in SUMMARY_ROWS]


def _scale_lines(scale: dict) -> list[str]:
    """The scale test's tables (bench/scale.py)."""
    rows = scale.get("rows") or []
    run = scale.get("run") or {}
    lines = [
        "",
        "## Scale, over HTTP",
        "",
        f"One request at a time through gunicorn ({run.get('workers', '?')} worker), each case "
        "alternating request by request with F-pk on the same server; "
        f"{run.get('rounds', '?')} rounds of {run.get('seconds', '?')} s per case; median "
        "(min-max) over the rounds. CPU: ms per request of the gunicorn worker (app) and of the "
        'PostgreSQL backend (db), from /proc. See bench/README.md, "The scale test".',
    ]
    at_scale = [r for r in rows if r.get("part") == "scale"]
    if at_scale:
        lines += [
            "",
            f"### At scale ({scale.get('sizes_text', '')})",
            "",
            "| case | p50 ratio | CPU ms/request (app) | db CPU ms | goal | pass |",
            "|---|---|---|---|---|---|",
        ]
        for r in at_scale:
            if r.get("error"):
                lines.append(f"| {r['label']} | — | — | — | {r['goal']} | ERROR: {r['error']} |")
                continue
            memory = (
                f" (+{r['peak_growth_mib']:.1f} MiB peak RSS)"
                if r.get("goal") and "MiB" in r["goal"]
                else ""
            )
            lines.append(
                f"| {r['label']} | {fmt_spread(r['p50_ratio'])} | "
                f"{_ms_text(r['cpu_ms'])} | {r['db_cpu_ms']['median']:.1f} | {r['goal']} | "
                f"{pass_text(r.get('passed'))}{memory} |"
            )
    flat = [r for r in rows if r.get("part") == "flat"]
    if flat:
        small, big = flat[0]["sizes"]
        lines += [
            "",
            f"### Flat: {big:,} vs {small:,} orders (and journal lines; "
            f"{min(big, 50_000):,} vs {min(small, 50_000):,} products)",
            "",
            "| case | summary | p50 ratio, small | p50 ratio, big | flat ratio (big/small) | "
            "CPU ms (app+db), small / big | goal | pass |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in flat:
            if r.get("error"):
                lines.append(
                    f"| {r['label']} | {r.get('summary') or ''} | — | — | — | — | {r['goal']} | "
                    f"ERROR: {r['error']} |"
                )
                continue
            cpu = "{:.1f} / {:.1f}".format(
                r["small"]["cpu_ms"]["median"] + r["small"]["db_cpu_ms"]["median"],
                r["big"]["cpu_ms"]["median"] + r["big"]["db_cpu_ms"]["median"],
            )
            lines.append(
                f"| {r['label']} | {r.get('summary') or ''} | "
                f"{r['small']['p50_ratio']['median']:.2f}x | {r['big']['p50_ratio']['median']:.2f}x"
                f" | {fmt_spread(r['flat_ratio'])} | {cpu} | {r['goal']} | "
                f"{pass_text(r.get('passed'))} |"
            )
    for module, error in (scale.get("errors") or {}).items():
        lines.append(f"\n- {module}: ERROR {error}")
    return lines


def _ms_text(value: dict) -> str:
    return f"{value['median']:.1f} ({value['min']:.1f}-{value['max']:.1f})"


def write_results(
    out_dir: Path = OUT_DIR,
    path: Path = RESULTS_MD,
    *,
    date: str | None = None,
    commit: str | None = None,
    cores: int | None = None,
    failures: dict[str, str] | None = None,
) -> str:
    """bench/results.md from the bench/out/*.json files: the summary of the issue's rows, the
    benches, then the scale test."""
    date = date or dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    commit = commit or git_commit()
    cores = cores or os.cpu_count()
    benches, scale = [], None
    for file in sorted(Path(out_dir).glob("*.json")):
        data = json.loads(file.read_text())
        if data.get("kind") == "scale_http":
            scale = data
        elif data.get("kind") == "bench":
            benches.append(data)
    lines = [
        "# Benchmark results",
        "",
        f"- date: {date}",
        f"- commit: {commit}",
        f"- machine: {cores} cores (server and load generator share them)",
        "",
        "## Summary",
        "",
        "| row | goal | measured | pass |",
        "|---|---|---|---|",
    ]
    for row in summary_rows(benches, scale):
        lines.append("| " + " | ".join(row) + " |")
    lines += [
        "",
        "## Benches",
        "",
        "Ratios are case over floor, measured in the same round; median (min-max) over the "
        "rounds. Floors: F-pk (one indexed lookup by primary key) for reads, F-pkw "
        "(select_for_update + update of one row) for writes; the webhook benches' floor is a "
        "no-op task through the same workers. See bench/README.md.",
        "",
        "| label | bench | case | floor | p50 ratio | p99 ratio | goal | pass |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for bench in benches:
        run = bench.get("run", {})
        name = bench["bench"]
        for s in bench["cases"]:
            label = label_of(name, s["case"])
            head = f"| {label} | {name} | {s['case']} | F-{s['floor']} |"
            if s.get("error"):
                lines.append(f"{head} — | — | {_case_goal(s)} | ERROR: {s['error']} |")
                continue
            lines.append(
                f"{head} {fmt_spread(s['p50_ratio'])} | {fmt_spread(s.get('p99_ratio'))} | "
                f"{_case_goal(s)} | {pass_text(s.get('passed'))} |"
            )
        if run:
            lines.append(
                f"| | {name} | *{run.get('rounds')} rounds x {run.get('seconds')} s, "
                f"{run.get('connections')} connections, {run.get('workers')} workers, "
                f"commit {bench.get('commit', '?')}* | | | | | |"
            )
        for s in bench["cases"]:
            if s.get("counts_per_s") and not s.get("error"):
                lines.append(
                    f"| | {name} | *{s['case']}: {rates_text(s['counts_per_s'])}* | | | | | |"
                )
        for note in bench.get("notes") or []:
            lines.append(f"| | {name} | *{note}* | | | | | |")
    if scale:
        lines += _scale_lines(scale)
    if failures:
        lines += ["", "## Not run, or failed", ""]
        lines += [f"- {name}: {reason}" for name, reason in failures.items()]
    text = "\n".join(lines) + "\n"
    Path(path).write_text(text)
    return text
