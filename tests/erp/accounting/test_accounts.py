"""The chart of accounts: the default chart, CRUD, the tree with balances, refusals."""

from __future__ import annotations

import pytest

from erp.accounting.models import Account
from tests.accounts.factories import UserFactory
from tests.erp.accounting.conftest import ACCOUNTS, account_id, ok, posted, year
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db


def test_the_default_chart_is_made_on_first_use_once(api):
    assert Account.objects.count() == 0
    listing = ok(api.get(ACCOUNTS))
    assert listing["total"] == 19
    roles = {row["code"]: row["role"] for row in listing["accounts"] if row["role"]}
    assert roles == {
        "1100": "bank",
        "1110": "cash",
        "1200": "receivable",
        "1300": "inventory",
        "1400": "vat_receivable",
        "2100": "payable",
        "2200": "vat_payable",
        "3200": "retained_earnings",
        "4100": "sales",
        "5100": "cogs",
        "5200": "purchases",
    }
    assert ok(api.get(ACCOUNTS))["total"] == 19
    bank = next(row for row in listing["accounts"] if row["code"] == "1100")
    assert bank["parent"]["code"] == "1000"


def test_create_read_update_delete(api):
    ok(api.get(ACCOUNTS))
    parent = account_id(api, "5000")
    made = ok(
        api.post(
            ACCOUNTS,
            {"code": "5400", "name": "Rent", "type": "expense", "parent_id": parent},
            format="json",
        ),
        201,
    )
    assert (made["code"], made["type"], made["parent"]["code"], made["active"]) == (
        "5400",
        "expense",
        "5000",
        True,
    )
    url = f"{ACCOUNTS}/{made['id']}"
    assert ok(api.get(url))["name"] == "Rent"
    changed = ok(api.patch(url, {"name": "Office rent", "active": False}, format="json"))
    assert (changed["name"], changed["active"]) == ("Office rent", False)
    assert api.delete(url).status_code == 204
    error(api.get(url), 404, "account_not_found")


def test_refusals_name_each_problem(api):
    ok(api.get(ACCOUNTS))
    body = error(
        api.post(
            ACCOUNTS,
            {
                "code": "1100",
                "name": "Again",
                "type": "income",
                "parent_id": account_id(api, "1000"),
            },
            format="json",
        ),
        400,
        "invalid_param",
    )
    assert set(body["data"]["params"]) == {"code", "parent_id"}
    body = error(
        api.post(
            ACCOUNTS, {"code": "9", "name": "X", "type": "asset", "role": "sales"}, format="json"
        ),
        400,
    )
    assert "role" in body["data"]["params"]
    body = error(
        api.post(
            ACCOUNTS, {"code": "9", "name": "X", "type": "asset", "role": "bank"}, format="json"
        ),
        400,
    )
    assert "1100 Bank" in body["data"]["params"]["role"]
    error(api.post(ACCOUNTS, {"code": "9", "name": "X", "type": "gold"}, format="json"), 400)
    error(
        api.post(
            ACCOUNTS, {"code": "9", "name": "X", "type": "asset", "parent_id": 99999}, format="json"
        ),
        400,
    )
    assert not Account.objects.filter(code="9").exists()
    # an account cannot go under itself or its own sub-account
    assets = account_id(api, "1000")
    body = error(
        api.patch(f"{ACCOUNTS}/{assets}", {"parent_id": account_id(api, "1100")}, format="json"),
        400,
    )
    assert "parent_id" in body["data"]["params"]
    # a role account is not deactivated
    error(api.patch(f"{ACCOUNTS}/{account_id(api, '1200')}", {"active": False}, format="json"), 400)
    assert Account.objects.get(code="1200").is_active


def test_a_role_moves_to_another_account(api):
    ok(api.get(ACCOUNTS))
    ok(api.patch(f"{ACCOUNTS}/{account_id(api, '1100')}", {"role": ""}, format="json"))
    ok(api.patch(f"{ACCOUNTS}/{account_id(api, '1110')}", {"role": "bank"}, format="json"))
    assert Account.objects.get(role="bank").code == "1110"


def test_delete_refused_409_in_use(api):
    year(api)
    posted(api, [("5300", "10.00", "0"), ("1110", "0", "10.00")])
    for code in ("5300", "1000"):  # lines; sub-accounts
        error(api.delete(f"{ACCOUNTS}/{account_id(api, code)}"), 409, "in_use")
    ok(api.patch(f"{ACCOUNTS}/{account_id(api, '1200')}", {"role": ""}, format="json"))
    ok(api.patch(f"{ACCOUNTS}/{account_id(api, '1400')}", {"role": "receivable"}, format="json"))
    error(api.delete(f"{ACCOUNTS}/{account_id(api, '1400')}"), 409, "in_use")  # its role
    assert api.delete(f"{ACCOUNTS}/{account_id(api, '1200')}").status_code == 204
    # the type of an account with lines does not change
    body = error(
        api.patch(f"{ACCOUNTS}/{account_id(api, '5300')}", {"type": "asset"}, format="json"), 400
    )
    assert "type" in body["data"]["params"]


def test_tree_nests_and_totals_balances(api):
    year(api)
    posted(api, [("1100", "250.00", "0"), ("3100", "0", "250.00")], day="2026-01-10")
    posted(api, [("1110", "40.00", "0"), ("1100", "0", "40.00")], day="2026-02-10")
    tree = ok(api.get(f"{ACCOUNTS}/tree", {"as_of": "2026-01-31"}))
    assets = next(node for node in tree["accounts"] if node["code"] == "1000")
    assert (assets["balance"], assets["total"]) == ("0.00", "250.00")
    tree = ok(api.get(f"{ACCOUNTS}/tree", {"as_of": "2026-12-31"}))
    assets = next(node for node in tree["accounts"] if node["code"] == "1000")
    children = {child["code"]: child["balance"] for child in assets["children"]}
    assert (children["1100"], children["1110"], assets["total"]) == ("210.00", "40.00", "250.00")
    equity = next(node for node in tree["accounts"] if node["code"] == "3000")
    assert equity["total"] == "250.00"  # credit-normal: shown positive
    error(api.get(f"{ACCOUNTS}/tree", {"as_of": "yesterday"}), 400, "invalid_param")


def test_list_filters_and_query_ceiling(api, django_assert_max_num_queries):
    ok(api.get(ACCOUNTS))
    incomes = ok(api.get(ACCOUNTS, {"type": "income,expense"}))["accounts"]
    assert [row["code"] for row in incomes] == [
        "4000",
        "4100",
        "4200",
        "5000",
        "5100",
        "5200",
        "5300",
    ]
    assert [r["code"] for r in ok(api.get(ACCOUNTS, {"role": "payable"}))["accounts"]] == ["2100"]
    assert ok(api.get(ACCOUNTS, {"search": "receivable"}))["total"] == 2
    assert ok(api.get(ACCOUNTS, {"parent_id": account_id(api, "2000")}))["total"] == 2
    with django_assert_max_num_queries(12) as few:
        ok(api.get(ACCOUNTS))
    baseline = len(few.captured_queries)
    parent = account_id(api, "5000")
    for n in range(30):
        Account.objects.create(
            code=f"59{n:02d}", name=f"Expense {n}", type="expense", parent_id=parent
        )
    with django_assert_max_num_queries(baseline):
        assert ok(api.get(ACCOUNTS))["total"] == 49
    with django_assert_max_num_queries(baseline):
        ok(api.get(f"{ACCOUNTS}/tree"))


def test_capability_and_gate(store_client, bookkeeper, erp_on):
    stranger = store_client(grant(UserFactory(), "ec_manage_purchasing"))
    error(stranger.get(ACCOUNTS), 403, "insufficient_capability")
    error(
        stranger.post(f"{ACCOUNTS}", {"code": "1", "name": "x", "type": "asset"}, format="json"),
        403,
    )


def test_403_erp_not_active_without_the_erp(store_client, bookkeeper):
    client = store_client(bookkeeper)
    error(client.get(ACCOUNTS), 403, "erp_not_active")
    error(client.get("/rest/ec/v1/reports/trial-balance"), 403, "erp_not_active")
