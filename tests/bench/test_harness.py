"""The benchmark harness's pure parts (bench/harness/), without a load: wrk's output, the
ratios over rounds, the goal verdicts, the refusal of a case that mostly errors, the Lua script
and bench/results.md. One test runs wrk for a second against a stub server, when wrk exists."""

import http.server
import json
import shutil
import threading

import pytest

from bench import harness
from bench.harness import Case

WRK_TEXT = """\
Running 1s test @ http://127.0.0.1:8119/nope
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.92ms    2.06ms  14.00ms   85.35%
    Req/Sec     1.27k   334.91     1.86k    70.00%
  Latency Distribution
     50%  980.00us
     75%    2.48ms
     90%    4.83ms
     99%    1.20s
  1263 requests in 1.00s, 641.55KB read
  Socket errors: connect 0, read 3, write 0, timeout 2
  Non-2xx or 3xx responses: 12
Requests/sec:   1261.62
Transfer/sec:    640.85KB
"""


def measurement(p50, p99, rps, *, ok=1000, bad=0, statuses=None, read_errors=0):
    return {
        "requests": ok + bad,
        "rps": rps,
        "p50_ms": p50,
        "p90_ms": p99,
        "p99_ms": p99,
        "ok": ok,
        "bad": bad,
        "statuses": statuses or {},
        "errors": {"connect": 0, "read": read_errors, "write": 0, "status": 0, "timeout": 0},
    }


def test_wrk_latency_text_is_parsed_with_its_units():
    m = harness.parse_wrk_output(WRK_TEXT)
    assert m["requests"] == 1263
    assert m["rps"] == pytest.approx(1261.62)
    assert m["p50_ms"] == pytest.approx(0.98)
    assert m["p90_ms"] == pytest.approx(4.83)
    assert m["p99_ms"] == pytest.approx(1200.0)
    assert (m["ok"], m["bad"]) == (1251, 12)
    assert m["errors"] == {"connect": 0, "read": 3, "write": 0, "status": 12, "timeout": 2}


def test_the_result_line_of_the_done_hook_wins_over_the_text():
    line = harness.RESULT_MARK + json.dumps(
        {
            "requests": 500,
            "duration_us": 2_000_000,
            "p50_us": 1500,
            "p90_us": 2500,
            "p99_us": 4000,
            "mean_us": 1600.5,
            "max_us": 9000,
            "ok": 490,
            "bad": 10,
            "statuses": {"429": 10},
            "errors": {"connect": 0, "read": 0, "write": 0, "status": 10, "timeout": 0},
        }
    )
    m = harness.parse_wrk_output(WRK_TEXT + line + "\n")
    assert (m["requests"], m["rps"], m["p50_ms"], m["p99_ms"]) == (500, 250.0, 1.5, 4.0)
    assert (m["ok"], m["bad"], m["statuses"]) == (490, 10, {"429": 10})


def test_output_without_latencies_is_refused():
    with pytest.raises(ValueError, match="percentiles"):
        harness.parse_wrk_output("Running 1s test\nRequests/sec: 10\n")


def test_ratios_are_median_min_max_over_the_rounds_and_goals_use_the_median():
    case = Case("verify", floor="pk", goal_p50=1.5, goal_p99=2.0)
    rounds = [
        {"floor": measurement(10, 20, 400), "case": measurement(p50, p99, rps)}
        for p50, p99, rps in [(12, 30, 300), (14, 50, 250), (20, 36, 200)]
    ]
    s = harness.summarise_case(case, rounds)
    assert s["error"] is None
    assert s["p50_ratio"] == {"median": 1.4, "min": 1.2, "max": 2.0}
    assert s["p99_ratio"] == {"median": 1.8, "min": 1.5, "max": 2.5}
    assert s["throughput_ratio"] == {"median": 1.6, "min": 400 / 300, "max": 2.0}
    assert s["passed"] is True
    assert harness.fmt_spread(s["p50_ratio"]) == "1.40x (1.20-2.00)"
    assert harness.summarise_case(Case("x", goal_p50=1.3), rounds)["passed"] is False
    assert harness.summarise_case(Case("x"), rounds)["passed"] is None
    table = harness.case_table([s])
    assert "1.40x (1.20-2.00)" in table
    assert "p50 ≤ 1.5x, p99 ≤ 2x" in table
    assert table.splitlines()[-1].endswith("pass")


def test_a_case_that_mostly_errors_is_refused():
    case = Case("cart", floor="pkw", goal_p50=2.0)
    bad_round = {
        "floor": measurement(10, 20, 400),
        "case": measurement(1, 2, 900, ok=100, bad=900, statuses={"429": 900}),
    }
    good_round = {"floor": measurement(10, 20, 400), "case": measurement(12, 22, 380)}
    s = harness.summarise_case(case, [good_round, bad_round])
    assert s["error"].startswith("refused: 90% of the answers were not 200")
    assert "'429': 900" in s["error"]
    assert (s["p50_ratio"], s["passed"]) == (None, False)
    socket_errors = measurement(1, 2, 9, read_errors=500)
    socket_round = {"floor": measurement(10, 20, 400), "case": socket_errors}
    assert harness.summarise_case(case, [socket_round])["error"].startswith("refused")
    assert "ERROR" in harness.pass_text(False, s["error"])


def test_the_case_is_formatted_with_the_seed_context():
    case = Case(
        "verify",
        method="POST",
        path="/x/{id}",
        body='{{"key": "{key}"}}',
        headers={"Authorization": "Bearer {token}"},
        lua="local id = {id}",
    ).formatted({"id": 7, "key": "EMP-1", "token": "t"})
    assert (case.path, case.body, case.headers) == (
        "/x/7",
        '{"key": "EMP-1"}',
        {"Authorization": "Bearer t"},
    )
    assert case.lua == "local id = 7"
    with pytest.raises(ValueError, match="floor"):
        Case("x", floor="nope")


def test_the_lua_script_sets_the_request_and_chains_the_case_hooks():
    script = harness.wrk_script(
        method="POST",
        body='{"a": "b\\n"}\n',
        headers={"Content-Type": "application/json"},
        expect_status=201,
        user_lua="function response(status, headers, body) end",
    )
    assert 'wrk.method = "POST"' in script
    assert r'wrk.body = "{\"a\": \"b\\n\"}\010"' in script
    assert 'wrk.headers["Content-Type"] = "application/json"' in script
    assert "local bench_expect = {[201] = true}" in script
    assert script.index("function response(status, headers, body) end") < script.index(
        "local bench_user_response = response"
    )


def test_results_md_has_the_date_commit_cores_and_one_row_per_case(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    ok = harness.summarise_case(
        Case("verify", goal_p50=1.5, goal_p99=2.0),
        [{"floor": measurement(10, 20, 400), "case": measurement(12, 30, 300)}],
    )
    refused = harness.summarise_case(
        Case("cart", floor="pkw"),
        [{"floor": measurement(10, 20, 400), "case": measurement(1, 1, 9, ok=0, bad=10)}],
    )
    (out / "verify.json").write_text(
        json.dumps(
            {
                "kind": "bench",
                "bench": "verify",
                "commit": "abc1234",
                "run": {"rounds": 5, "seconds": 3, "connections": 4, "workers": 2},
                "cases": [ok, refused],
            }
        )
    )
    (out / "scale.json").write_text(
        json.dumps(
            {
                "kind": "scale_http",
                "sizes_text": "100,000 licences",
                "run": {"rounds": 5, "seconds": 2, "workers": 1},
                "rows": [
                    {
                        "part": "scale",
                        "label": "licence list",
                        "goal": "p50 ≤ 1000x F-pk",
                        "p50_ratio": {"median": 600.0, "min": 550.0, "max": 700.0},
                        "cpu_ms": {"median": 900.0, "min": 850.0, "max": 990.0},
                        "db_cpu_ms": {"median": 120.0, "min": 100.0, "max": 130.0},
                        "passed": True,
                        "error": None,
                    }
                ],
                "errors": {"flat_1000": "preparing flat_1000 failed (1)"},
            }
        )
    )
    path = tmp_path / "results.md"
    text = harness.write_results(
        out, path, date="2026-11-23 21:00 UTC", commit="abc1234", cores=2, failures={"x": "boom"}
    )
    assert path.read_text() == text
    assert "- date: 2026-11-23 21:00 UTC" in text
    assert "- commit: abc1234" in text
    assert "- machine: 2 cores" in text
    assert "| label | bench | case | floor | p50 ratio | p99 ratio | goal | pass |" in text
    assert (
        "| verify | verify | verify | F-pk | 1.20x (1.20-1.20) | 1.50x (1.50-1.50) | "
        "p50 ≤ 1.5x, p99 ≤ 2x F-pk | pass |"
    ) in text
    assert "| cart | verify | cart | F-pkw | — | — | — | ERROR: refused" in text
    assert "### At scale (100,000 licences)" in text
    assert (
        "| licence list | 600.00x (550.00-700.00) | 900.0 (850.0-990.0) | 120.0 | "
        "p50 ≤ 1000x F-pk | pass |"
    ) in text
    assert "- flat_1000: ERROR preparing flat_1000 failed (1)" in text
    assert "| status change (cancel) | — | not measured | — |" in text
    assert "## Not run, or failed\n\n- x: boom" in text


def test_the_database_is_named_by_the_prefix_on_the_given_server(monkeypatch):
    monkeypatch.setenv("BENCH_DATABASE_URL", "postgres://u@db:5433/ignored")
    monkeypatch.delenv("BENCH_DB_PREFIX", raising=False)
    assert harness.database_url("verify") == "postgres://u@db:5433/emporion_bench_verify"


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed")
def test_wrk_runs_the_script_and_counts_unexpected_statuses():
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/ok" else 404)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        common = {
            "method": "GET",
            "body": None,
            "headers": {},
            "expect_status": 200,
            "lua": None,
            "seconds": 1,
            "connections": 2,
            "threads": 1,
        }
        good = harness.run_wrk(port, path="/ok", **common)
        bad = harness.run_wrk(port, path="/missing", **common)
    finally:
        server.shutdown()
    assert good["ok"] > 0
    assert good["bad"] == 0
    assert good["p99_ms"] >= good["p50_ms"] > 0
    assert bad["ok"] == 0
    assert bad["statuses"] == {"404": bad["bad"]}
    assert harness.bad_share(bad) == 1.0


def test_a_case_may_expect_several_statuses_and_its_script_may_count_events():
    script = harness.wrk_script(
        method="POST", body=None, headers={}, expect_status=(200, 201), user_lua=None
    )
    assert "local bench_expect = {[200] = true, [201] = true}" in script
    assert "bench_counts = {}" in script
    assert harness.expected_text((200, 201)) == "200/201"
    line = harness.RESULT_MARK + json.dumps(
        {
            "requests": 300,
            "duration_us": 2_000_000,
            "p50_us": 1500,
            "p90_us": 2500,
            "p99_us": 4000,
            "mean_us": 1600.5,
            "max_us": 9000,
            "ok": 300,
            "bad": 0,
            "statuses": {},
            "errors": {"connect": 0, "read": 0, "write": 0, "status": 0, "timeout": 0},
            "counts": {"checkouts": 100},
        }
    )
    m = harness.parse_wrk_output(line)
    assert (m["seconds"], m["counts"]) == (2.0, {"checkouts": 100})
    case = Case("flow", floor="pkw", expect_status=(200, 201))
    rounds = [
        {"floor": measurement(10, 20, 400), "case": {**m, "counts": {"checkouts": n}}}
        for n in (100, 60, 80)
    ]
    s = harness.summarise_case(case, rounds)
    assert s["error"] is None
    assert s["passed"] is None
    assert s["counts_per_s"] == {"checkouts": {"median": 40.0, "min": 30.0, "max": 50.0}}
    assert harness.rates_text(s["counts_per_s"]) == "checkouts 40.0/s (30.0-50.0)"
    bad = {**m, "ok": 10, "bad": 290, "statuses": {"409": 290}}
    refused = harness.summarise_case(case, [{"floor": measurement(10, 20, 400), "case": bad}])
    assert refused["error"].startswith("refused: 97% of the answers were not 200/201")


def test_results_md_shows_a_case_s_counted_rates_and_a_bench_s_notes(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    m = {**measurement(30, 60, 90), "seconds": 2.0, "counts": {"checkouts": 60}}
    flow = harness.summarise_case(
        Case("checkout_flow", floor="pkw", expect_status=(200, 201)),
        [{"floor": measurement(10, 20, 400), "case": m}],
    )
    (out / "checkout.json").write_text(
        json.dumps(
            {
                "kind": "bench",
                "bench": "checkout",
                "cases": [flow],
                "notes": ["database after the run: consistent"],
            }
        )
    )
    text = harness.write_results(out, tmp_path / "results.md", date="d", commit="c", cores=2)
    row = (
        "| checkout_flow | checkout | checkout_flow | F-pkw | 3.00x (3.00-3.00) | "
        "3.00x (3.00-3.00) | — | — |"
    )
    assert row in text
    assert "| | checkout | *checkout_flow: checkouts 30.0/s (30.0-30.0)* | | | | | |" in text
    assert "| | checkout | *database after the run: consistent* | | | | | |" in text


def test_extra_env_reaches_the_server_and_seed_of_that_bench_only(monkeypatch, tmp_path):
    seen = {}

    def prepare(name, *, seed, seed_version, reseed, env, state_key=None):
        seen["env"] = env
        raise RuntimeError("stop here")

    monkeypatch.setattr(harness.runner, "prepare_database", prepare)
    monkeypatch.setattr(harness.environment, "ROOT", tmp_path)
    with pytest.raises(RuntimeError, match="stop here"):
        harness.run_bench(
            "x", seed=None, cases=[], argv=[], extra_env={"PAYMENT_SANDBOX_ALLOWED": "1"}
        )
    assert seen["env"]["PAYMENT_SANDBOX_ALLOWED"] == "1"
    assert seen["env"]["DJANGO_SETTINGS_MODULE"] == "bench.settings"
    with pytest.raises(RuntimeError, match="stop here"):
        harness.run_bench("x", seed=None, cases=[], argv=[])
    assert "PAYMENT_SANDBOX_ALLOWED" not in seen["env"]


def test_each_bench_has_broker_queues_of_its_own():
    """A bench's worker and server share their queues; another bench's are elsewhere, so
    tasks one bench leaves are never run against the next bench's database."""
    orders = harness.server_env("orders", "postgres://x/y", "redis://127.0.0.1:6379/12")
    cart = harness.server_env("cart", "postgres://x/z", "redis://127.0.0.1:6379/12")
    assert orders["BENCH_QUEUE_PREFIX"] == harness.queue_prefix("orders")
    assert orders["BENCH_QUEUE_PREFIX"] != cart["BENCH_QUEUE_PREFIX"]
    assert not set(harness.queue_keys("orders")) & set(harness.queue_keys("cart"))
    assert all(key.startswith(orders["BENCH_QUEUE_PREFIX"]) for key in harness.queue_keys("orders"))
    # flush_redis empties the cache's keys (bench_<name>:*), never the broker's
    assert not harness.queue_prefix("orders").startswith("bench_orders:")


def test_the_status_change_s_summary_counts_the_worker_s_share(tmp_path):
    """bench_orders adds the worker's CPU to a status change's p50: the summary's goal and
    verdict are those of the sum, the request alone shown beside it."""
    out = tmp_path / "out"
    out.mkdir()
    cancel = harness.summarise_case(
        Case("status_change_cancel", floor="pkw", goal_p50=6.0),
        [{"floor": measurement(10, 20, 400), "case": measurement(50, 90, 80)}],
    )
    cancel["worker_ms_per_request"] = {"median": 30.0, "min": 30.0, "max": 30.0}
    cancel["p50_plus_worker_ratio"] = {"median": 8.0, "min": 8.0, "max": 8.0}
    cancel["p50_plus_worker_passed"] = False
    assert cancel["passed"]  # 5x alone: under the goal
    (out / "orders.json").write_text(
        json.dumps({"kind": "bench", "bench": "orders", "cases": [cancel]})
    )
    text = harness.write_results(out, tmp_path / "results.md", date="d", commit="c", cores=2)
    assert (
        "| status change (cancel) | (p50 + worker CPU) ≤ 6x F-pkw | 8.00x (8.00-8.00); request "
        "alone 5.00x (5.00-5.00), worker 30.0 ms a request | FAIL |"
    ) in text
