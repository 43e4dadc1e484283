"""The store's reports at two sizes (the scale test's flat cases, bench/scale.py): /orders/stats,
/dashboard/stats, /customers/stats and /customers-with-stats over HTTP with 1,000 orders and
with 100,000 (bench/scale_orders.py's seed: an order a minute up to now, two lines each, a
tenth as many customers), each over F-pk measured beside it on the same server, and the ratio
of the two sizes; the goal is at most 2.

The days before today are closed by `rebuild_report_rollups` (as the nightly task leaves
them) on every run: bench/scale_erp.rebuild runs it with the ERP's rebuild commands.

    .venv/bin/python -m bench.scale_reports --rounds 5 --seconds 2    # = bench.scale --only reports
"""

from __future__ import annotations

from datetime import timedelta

from bench.harness.http_loop import HttpCase

API = "/rest/ec/v1"
AUTH = {"Authorization": "{auth}"}
GOAL = 2.0


def _case(label: str, query: str, summary: str) -> HttpCase:
    return HttpCase(label, f"{API}{query}", AUTH, goal_flat=GOAL, summary=summary)


#: the reports as the dashboard and the staff lists ask for them
CASES = [
    _case("orders/stats", "/orders/stats", "orders stats"),
    _case(
        "orders/stats, sales of the last 30 days",
        "/orders/stats?status=processing,shipped,completed&date_from={day_30}&date_to={today}",
        "orders stats",
    ),
    _case("orders/stats, paid", "/orders/stats?payment_status=paid", "orders stats"),
    _case("dashboard/stats (30d)", "/dashboard/stats", "dashboard"),
    _case("dashboard/stats, year", "/dashboard/stats?period=year&top=20", "dashboard"),
    _case("dashboard/stats, 7d in USD", "/dashboard/stats?period=7d&currency=USD", "dashboard"),
    _case("customers/stats", "/customers/stats", "customers stats"),
    _case("customers/stats, guests", "/customers/stats?registered=false", "customers stats"),
    _case("customers/stats, with orders", "/customers/stats?has_orders=true", "customers stats"),
    _case("customers-with-stats", "/customers-with-stats?per_page=100", "customers-with-stats"),
    _case(
        "customers-with-stats by total spent",
        "/customers-with-stats?orderby=total_spent&per_page=100",
        "customers-with-stats",
    ),
    _case(
        "customers-with-stats by last order",
        "/customers-with-stats?orderby=last_order&order=asc&per_page=100",
        "customers-with-stats",
    ),
]


def context() -> dict:
    """The cases' placeholders that depend on the day of the run."""
    from django.utils import timezone

    today = timezone.now().date()
    return {"today": today.isoformat(), "day_30": (today - timedelta(days=29)).isoformat()}


if __name__ == "__main__":
    import sys

    from bench import scale

    raise SystemExit(scale.main(["--only", "reports", *sys.argv[1:]]))
