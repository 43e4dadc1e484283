"""The scale test's pure parts (bench/harness/http_loop.py, bench/scale.py's tables, the
summary table of bench/results.md), without a server; one test runs the timed loop against a
stub HTTP server standing in for gunicorn (this process's own CPU is what it reads)."""

import http.server
import json
import os
import threading

import pytest

from bench import harness
from bench.harness import http_loop
from bench.harness.http_loop import HttpCase


def figures(case_ms, floor_ms, cpu, floor_cpu, *, bad=None):
    return http_loop.ratio_round(
        {
            "case": {
                "p50_ms": case_ms,
                "cpu_ms": cpu,
                "db_cpu_ms": 1.0,
                "bytes": 10,
                "bad": bad or {},
                "peak_growth_mib": 2.0,
            },
            "floor": {"p50_ms": floor_ms, "cpu_ms": floor_cpu, "db_cpu_ms": 0.1, "bad": {}},
        }
    )


def test_a_round_is_the_case_over_its_floor_and_the_flat_ratio_divides_two_sizes():
    small = figures(4.0, 2.0, 3.0, 1.0)
    big = figures(9.0, 3.0, 6.0, 1.5)
    # CPU: the workers' and the database backends' (1.0 and 0.1 ms in figures())
    assert (small["p50_ratio"], small["cpu_ratio"]) == (2.0, 4.0 / 1.1)
    flat = http_loop.flat_round(small, big)
    assert flat["flat_ratio"] == 1.5
    assert flat["cpu_flat_ratio"] == pytest.approx((7.0 / 1.6) / (4.0 / 1.1))
    summary = http_loop.summarise_rounds([small, figures(6.0, 2.0, 3.0, 1.0), big])
    assert summary["p50_ratio"] == {"median": 3.0, "min": 2.0, "max": 3.0}
    assert summary["peak_growth_mib"] == 2.0
    assert http_loop.refused([small, big]) is None
    assert "'500': 2" in http_loop.refused([figures(1, 1, 1, 1, bad={"500": 2})])


def test_goals_hold_on_the_medians():
    case = HttpCase("x", "/x", goal_p50=4.0, goal_mib=50.0)
    row = {"p50_ratio": {"median": 3.9}, "peak_growth_mib": 10.0}
    assert http_loop.verdict(row, case) is True
    assert http_loop.verdict({**row, "peak_growth_mib": 51.0}, case) is False
    flat = HttpCase("y", "/y", goal_flat=1.5)
    assert http_loop.verdict({"flat_ratio": {"median": 1.6}}, flat) is False
    assert http_loop.verdict({"flat_ratio": {"median": 1.6}}, HttpCase("z", "/z")) is None
    assert http_loop.goal_words(case) == "p50 ≤ 4x F-pk, peak RSS growth ≤ 50 MiB"
    assert http_loop.goal_words(flat) == "big/small ≤ 1.5x"
    formatted = HttpCase("r", "/r?d={day}", {"Authorization": "{auth}"}).formatted(
        {"day": "2026-01-01", "auth": "Basic x"}
    )
    assert (formatted.path, formatted.headers) == ("/r?d=2026-01-01", {"Authorization": "Basic x"})


def test_the_loop_alternates_case_and_floor_and_reads_the_cpu_of_the_server():
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.path)
            body = b"[" + b"1," * (2000 if self.path == "/case" else 1) + b"1]"
            self.send_response(200 if self.path != "/missing" else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    # the "server" is this process: its own CPU counts as the workers'
    target = http_loop.Server(port=port, master=os.getppid())
    target.pids = lambda: ([os.getpid()], [])
    try:
        measured = http_loop.measure_pairs(target, HttpCase("c", "/case"), seconds=0, min_pairs=4)
        missing = http_loop.measure_pairs(target, HttpCase("m", "/missing"), seconds=0, min_pairs=1)
    finally:
        server.shutdown()
    assert seen[:8] == ["/bench/floor/pk", "/case", "/case", "/bench/floor/pk"] * 2
    assert measured["case"]["n"] == measured["floor"]["n"] == 4
    assert measured["case"]["bytes"] > measured["floor"]["bytes"]
    assert measured["case"]["cpu_ms"] > 0
    assert measured["case"]["bad"] == {}
    assert missing["case"]["bad"] == {"404": 1}


def test_process_figures_read_proc():
    assert http_loop.cpu_ns([os.getpid()]) > 0
    assert http_loop.cpu_ns([2**22 + 12345]) == 0  # gone: counts nothing
    # a process gone between the readings (a closed database backend) is left out
    assert http_loop.cpu_spent_ms({1: 5_000_000, 2: 9_000_000}, {1: 7_000_000}) == 2.0
    before = http_loop.reset_peak([os.getpid()])
    assert before[os.getpid()] > 0
    assert http_loop.peak_growth_mib(before) >= 0


def scale_json(tmp_path, rows):
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    (out / "scale.json").write_text(
        json.dumps({"kind": "scale_http", "run": {}, "rows": rows, "errors": {}})
    )
    return out


def flat_row(label, summary, ratio, passed, goal="big/small ≤ 2x"):
    spread = {"median": ratio, "min": ratio - 0.1, "max": ratio + 0.1}
    size = {
        "p50_ratio": {"median": 3.0, "min": 3.0, "max": 3.0},
        "cpu_ms": {"median": 2.0, "min": 2.0, "max": 2.0},
        "db_cpu_ms": {"median": 1.0, "min": 1.0, "max": 1.0},
    }
    return {
        "part": "flat",
        "label": label,
        "summary": summary,
        "goal": goal,
        "sizes": [1000, 100000],
        "small": size,
        "big": size,
        "flat_ratio": spread,
        "cpu_flat_ratio": spread,
        "passed": passed,
        "error": None,
    }


def test_the_summary_names_the_issue_s_rows_and_takes_the_worst_flat_case(tmp_path):
    out = scale_json(
        tmp_path,
        [
            flat_row("dashboard/stats (30d)", "dashboard", 1.2, True),
            flat_row("dashboard/stats, year", "dashboard", 2.5, False),
            flat_row("ERP: stock/levels", "stock levels", 1.1, True, "big/small ≤ 1.5x"),
        ],
    )
    m = {
        "requests": 10,
        "rps": 100.0,
        "p50_ms": 2.0,
        "p90_ms": 3,
        "p99_ms": 3.0,
        "ok": 10,
        "bad": 0,
        "statuses": {},
        "errors": {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0},
    }
    floor = {**m, "p50_ms": 1.0, "p99_ms": 1.0}
    cases = [
        harness.summarise_case(
            harness.Case(name, floor="pkw", goal_p50=3.0), [{"floor": floor, "case": m}]
        )
        for name in ("status_change_cancel", "status_change_reopen")
    ]
    contention = {
        "goal": 2.0,
        "ratio": {"median": 1.5, "min": 1.2, "max": 1.9},
        "bad_share": 0.0,
        "passed": True,
    }
    (out / "orders.json").write_text(
        json.dumps({"kind": "bench", "bench": "orders", "cases": cases, "contention": contention})
    )
    webhooks = {
        "case": "webhooks, 2 workers",
        "floor": "task",
        "goal_text": "deliveries/s ≥ 0.5x no-op tasks/s",
        "p50_ratio": {"median": 0.3, "min": 0.2, "max": 0.4},
        "p99_ratio": None,
        "passed": False,
        "error": None,
    }
    (out / "webhooks.json").write_text(
        json.dumps({"kind": "bench", "bench": "webhooks", "cases": [webhooks]})
    )
    text = harness.write_results(out, tmp_path / "results.md", date="d", commit="c", cores=2)
    summary = text.split("## Summary", 1)[1].split("## Benches", 1)[0]
    rows = [
        line.split(" | ")[0].lstrip("| ") for line in summary.splitlines() if line.startswith("| ")
    ]
    assert rows[1:] == list(harness.results.SUMMARY_ROWS)
    assert "| status change (cancel) | p50 ≤ 3x F-pkw | 2.00x (2.00-2.00) | pass |" in summary
    assert (
        "| status change (contention) | p50 at 8 connections ≤ 2x at 1 | 1.50x (1.20-1.90) | pass |"
    ) in summary
    assert "| cold list | — | not measured | — |" in summary
    assert (
        "| dashboard | big/small ≤ 2x (100,000 vs 1,000, each over F-pk) | 2.50x (2.40-2.60), "
        "worst of 2: dashboard/stats, year | FAIL |"
    ) in summary
    assert "| stock levels | big/small ≤ 1.5x" in summary
    assert (
        "| webhooks, 2 workers | deliveries/s ≥ 0.5x no-op tasks/s | 0.30x (0.20-0.40) | FAIL |"
    ) in summary
    # the bench table names the cases by their label too
    assert "| status change (reopen) | orders | status_change_reopen | F-pkw |" in text
    assert "### Flat: 100,000 vs 1,000 orders" in text


@pytest.mark.parametrize("module", ["scale_catalog", "scale_licences", "scale_orders"])
def test_each_scale_module_has_http_cases_with_a_ratio_goal(module):
    import importlib

    cases = importlib.import_module(f"bench.{module}").CASES
    assert cases
    assert all(case.goal_p50 is not None for case in cases)


def test_every_flat_case_counts_for_a_summary_row_or_an_issue_goal():
    from bench import scale_erp, scale_reports

    names = {c.summary for c in scale_reports.CASES + scale_erp.CASES}
    rows = set(harness.results.SUMMARY_ROWS)
    # Every report the goal names has its row in the summary.
    assert names <= rows
    assert {"dashboard", "orders stats", "customers stats", "customers-with-stats"} <= names
    assert {"trial balance", "profit-loss", "balance sheet", "rfm", "stock stats"} <= names
    assert "stock levels" in names
    assert all(c.goal_flat == 2.0 for c in scale_reports.CASES)
    assert {c.goal_flat for c in scale_erp.CASES if c.summary == "stock levels"} == {1.5}
