"""Fixtures of the accounting tests: a bookkeeper (ec_manage_accounting) and helpers that
write through the HTTP API."""

from __future__ import annotations

import pytest
from django.test import TestCase

from store.common.capabilities import manage
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, grant

BASE = API
ACCOUNTS = f"{API}/accounts"
YEARS = f"{API}/fiscal-years"
ENTRIES = f"{API}/journal-entries"
REPORTS = f"{API}/reports"


@pytest.fixture
def bookkeeper(db):
    return grant(UserFactory(email="books@example.com"), manage("accounting"))


@pytest.fixture
def api(erp_on, store_client, bookkeeper):
    """A client with ec_manage_accounting, the ERP on."""
    return store_client(bookkeeper)


def on_commit():
    """Run what the block sends on commit (the business events) at its end."""
    return TestCase.captureOnCommitCallbacks(execute=True)


def ok(response, status=200) -> dict:
    assert response.status_code == status, response.content
    return response.json() if response.content else {}


def account_id(api, code: str) -> int:
    rows = ok(api.get(ACCOUNTS, {"search": code}))["accounts"]
    return next(row["id"] for row in rows if row["code"] == code)


def year(api, start="2026-01-01", end="2026-12-31", **fields) -> dict:
    return ok(api.post(YEARS, {"start_date": start, "end_date": end, **fields}, format="json"), 201)


def draft(api, lines, day="2026-03-01", **fields) -> dict:
    """A draft: lines are (code, debit, credit)."""
    body_lines = [
        {"account_id": account_id(api, code), "debit": debit, "credit": credit}
        for code, debit, credit in lines
    ]
    body = {"date": day, "lines": body_lines, **fields}
    return ok(api.post(ENTRIES, body, format="json"), 201)


def posted(api, lines, day="2026-03-01", **fields) -> dict:
    entry = draft(api, lines, day, **fields)
    return ok(api.post(f"{ENTRIES}/{entry['id']}/post"))


def trial_balance(api, **query) -> dict:
    return ok(api.get(f"{REPORTS}/trial-balance", query))


def closing_of(report: dict) -> dict[str, str]:
    """{code: signed closing balance (debit positive)} of a trial balance."""
    from decimal import Decimal

    return {
        row["code"]: str(Decimal(row["closing_debit"]) - Decimal(row["closing_credit"]))
        for row in report["accounts"]
    }


@pytest.fixture
def books_api(erp_on, store_client, bookkeeper):
    """A client with the accounting, invoicing, purchasing and orders capabilities."""
    grant(
        bookkeeper,
        manage("invoicing"),
        manage("purchasing"),
        manage("inventory"),
        "ec_manage_orders",
    )
    return store_client(bookkeeper)
