"""Each report takes a fixed number of queries, whatever the number of entries: measured once
for the module on the books of test_reports.py, then again after forty more entries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from erp.core import services as erp_services
from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.erp.accounting.conftest import REPORTS, ok, posted
from tests.erp.accounting.test_reports import books
from tests.erp.conftest import store_licence
from tests.fixtures.store import basic_auth, error, grant
from tests.fixtures.tasks import eager_tasks

pytestmark = pytest.mark.django_db

REPORT_NAMES = [
    "trial-balance",
    "profit-loss",
    "balance-sheet",
    "vat-return",
    "accounts-receivable",
    "accounts-payable",
]


def _queries(api, report: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        ok(api.get(f"{REPORTS}/{report}", {"as_of": "2026-12-31"}))
    return len(captured)


@pytest.fixture(scope="module")
def costs(module_db):
    """The client, and {report: (queries on the books, queries after forty more entries)}."""
    with eager_tasks():
        erp_services.erp_activate(license_key=store_licence().license_key)
        api = APIClient()
        bookkeeper = grant(UserFactory(email="books@example.com"), manage("accounting"))
        api.credentials(HTTP_AUTHORIZATION=basic_auth(bookkeeper))
        books(api)
        few = {report: _queries(api, report) for report in REPORT_NAMES}
        for n in range(20):
            posted(
                api, [("1200", f"{n + 1}.00", "0"), ("4100", "0", f"{n + 1}.00")], day="2026-04-01"
            )
            posted(api, [("5200", "1.00", "0"), ("2100", "0", "1.00")], day="2026-04-02")
        many = {report: _queries(api, report) for report in REPORT_NAMES}
    return api, {report: (few[report], many[report]) for report in REPORT_NAMES}


@pytest.mark.parametrize("report", REPORT_NAMES)
def test_reports_take_a_fixed_number_of_queries(costs, report):
    api, by_report = costs
    few, many = by_report[report]
    assert few <= 10
    assert many <= few, (few, many)
    error(api.get(f"{REPORTS}/{report}", {"as_of": "2026-02-30"}), 400, "invalid_param")
