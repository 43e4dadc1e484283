"""Application passwords over HTTP Basic behind the log-in limits (accounts.services
.app_password_authenticate): wrong ones count per e-mail address and per client address in the
same rows as the portal's, the checkout's and the admin's log-ins, a lock refuses even the right
one with the store's 429 `login_locked`, and right ones count nothing."""

from __future__ import annotations

import base64
import itertools
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import AppPassword, LoginLimit
from accounts.services import app_password_create
from tests.accounts.factories import PASSWORD, UserFactory
from tests.concurrency import race
from tests.fixtures.store import API, error, shop_manager

pytestmark = pytest.mark.django_db

ORDERS = f"{API}/orders"
PORTAL_LOGIN = "/api/v1/portal/auth/login"
CHECKOUT_LOGIN = f"{API}/checkout/login"
WRONG = "abcd efgh ijkl mnop qrst uvwx"
_addresses = (f"10.2.{n // 250}.{n % 250 + 1}" for n in itertools.count())


def next_address() -> str:
    """A new client address per request, so that only the e-mail address's count is tested."""
    return next(_addresses)


def basic(email: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{email}:{password}".encode()).decode()


def get_orders(email: str, password: str, address: str | None = None):
    return APIClient().get(
        ORDERS,
        HTTP_AUTHORIZATION=basic(email, password),
        REMOTE_ADDR=address or next_address(),
    )


def log_in(path: str, email: str, password: str):
    return Client().post(
        path,
        {"email": email, "password": password},
        content_type="application/json",
        REMOTE_ADDR=next_address(),
    )


def locked(response) -> int:
    """Assert the store's lock answer; its Retry-After in seconds."""
    body = error(response, 429, "login_locked")
    assert "Too many failed log-ins" in body["message"]
    return int(response["Retry-After"])


@pytest.fixture
def manager_password():
    """A shop manager and one of its application passwords (as shown once)."""
    manager = shop_manager(email="manager@example.com")
    _record, raw = app_password_create(user=manager, name="ERP sync")
    return manager, raw


def row(kind: str) -> LoginLimit:
    return LoginLimit.objects.get(kind=kind)


def test_wrong_passwords_from_one_address_lock_it_for_every_account(manager_password, settings):
    manager, raw = manager_password
    here = "192.0.2.10"
    assert get_orders(manager.email, raw, here).status_code == 200
    for n in range(settings.LOGIN_ADDRESS_FAILURE_LIMIT):  # 50, one guess per e-mail address
        error(get_orders(f"guess{n}@example.com", WRONG, here), 401, "invalid_app_password")

    touched = AppPassword.objects.get().last_used_at
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        response = get_orders(manager.email, raw, here)
        assert locked(response) == 13 * 60
        assert "WWW-Authenticate" not in response
        # Refused: the password was not marked as used.
        assert AppPassword.objects.get().last_used_at == touched
        # A guess during the lock is refused the same way and not counted again.
        assert locked(get_orders("another@example.com", WRONG, here)) == 13 * 60
        assert (row("address").failures, row("address").locks) == (0, 1)
        # From elsewhere the same password works.
        assert get_orders(manager.email, raw).status_code == 200


def test_wrong_passwords_for_one_account_lock_it_from_every_address(manager_password, settings):
    manager, raw = manager_password
    other = shop_manager(email="other@example.com")
    _record, other_raw = app_password_create(user=other, name="ERP sync")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):  # 10, each from a new address
        error(get_orders("Manager@Example.com", WRONG), 401, "invalid_app_password")
    assert locked(get_orders(manager.email, raw)) == 15 * 60
    assert get_orders(other.email, other_raw).status_code == 200
    lock = row("account")
    assert (lock.subject, lock.locks, lock.failures) == ("manager@example.com", 1, 0)


def test_one_request_counts_once(manager_password):
    manager, _raw = manager_password
    here = "192.0.2.11"
    error(get_orders(manager.email, WRONG, here), 401, "invalid_app_password")
    assert row("account").failures == 1
    assert row("address").failures == 1
    assert row("address").subject == here


def test_right_passwords_count_nothing(manager_password, settings):
    """Successes write no row and give nothing back: a failure stays counted."""
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 3
    manager, raw = manager_password
    here = "192.0.2.12"
    for _ in range(5):
        assert get_orders(manager.email, raw, here).status_code == 200
    assert not LoginLimit.objects.exists()
    error(get_orders(manager.email, WRONG, here), 401)
    assert get_orders(manager.email, raw, here).status_code == 200
    assert (row("account").failures, row("address").failures) == (1, 1)


def test_headers_that_name_no_password_are_not_counted(manager_password):
    for header in ("Basic", "Basic !!!", "Basic " + base64.b64encode(b"no-colon").decode()):
        response = APIClient().get(ORDERS, HTTP_AUTHORIZATION=header)
        assert response.status_code == 401, header
    assert not LoginLimit.objects.exists()


def test_an_e_mail_address_with_a_nul_is_a_counted_failure(manager_password):
    error(get_orders("manager@example.com\x00", WRONG), 401, "invalid_app_password")
    assert row("account").failures == 1


def test_the_lock_ends_and_grows(manager_password, settings):
    manager, raw = manager_password
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(settings.LOGIN_FAILURE_LIMIT):
            get_orders(manager.email, WRONG)
        assert locked(get_orders(manager.email, raw)) == 15 * 60
        clock.move_to(start + timedelta(minutes=10))
        assert locked(get_orders(manager.email, raw)) == 5 * 60
        clock.move_to(start + timedelta(minutes=15, seconds=1))
        assert get_orders(manager.email, raw).status_code == 200
        # The next lock lasts twice as long, as the other log-ins' do.
        for _ in range(settings.LOGIN_FAILURE_LIMIT):
            error(get_orders(manager.email, WRONG), 401)
        assert locked(get_orders(manager.email, raw)) == 30 * 60


def test_failures_on_the_other_log_ins_lock_basic(manager_password):
    manager, raw = manager_password
    for _ in range(5):
        assert log_in(PORTAL_LOGIN, manager.email, "Not-The-Password-1").status_code == 401
    for _ in range(5):
        assert log_in(CHECKOUT_LOGIN, manager.email, "Not-The-Password-1").status_code == 401
    assert locked(get_orders(manager.email, raw)) == 15 * 60


def test_basic_failures_lock_the_other_log_ins(manager_password):
    manager, _raw = manager_password
    for _ in range(10):
        error(get_orders(manager.email, WRONG), 401)
    response = log_in(PORTAL_LOGIN, manager.email, PASSWORD)
    assert (response.status_code, response.json()["code"]) == (429, "login_locked")
    assert locked(log_in(CHECKOUT_LOGIN, manager.email, PASSWORD)) == 15 * 60


def test_a_log_in_with_the_account_password_forgets_basic_failures(manager_password):
    manager, raw = manager_password
    for _ in range(9):
        error(get_orders(manager.email, WRONG), 401)
    assert log_in(PORTAL_LOGIN, manager.email, PASSWORD).status_code == 200
    assert not LoginLimit.objects.filter(kind="account").exists()
    for _ in range(9):
        error(get_orders(manager.email, WRONG), 401)
    assert get_orders(manager.email, raw).status_code == 200


def test_an_app_password_does_not_forget_guesses_at_the_account_password(manager_password):
    """A working integration must not reset the count of someone guessing the account
    password: the application password proves nothing about that one."""
    manager, raw = manager_password
    for _ in range(9):
        assert log_in(PORTAL_LOGIN, manager.email, "Not-The-Password-1").status_code == 401
    assert get_orders(manager.email, raw).status_code == 200
    assert log_in(PORTAL_LOGIN, manager.email, "Not-The-Password-1").status_code == 401
    response = log_in(PORTAL_LOGIN, manager.email, PASSWORD)
    assert (response.status_code, response.json()["code"]) == (429, "login_locked")


def test_an_inactive_accounts_password_counts_as_wrong(manager_password):
    manager, raw = manager_password
    manager.is_active = False
    manager.save(update_fields=["is_active"])
    error(get_orders(manager.email, raw), 401, "invalid_app_password")
    assert row("account").failures == 1


def test_the_customer_account_password_over_basic_counts(settings):
    """The account password is never accepted over Basic: trying it is a failure like any."""
    UserFactory(email="shopper@example.com")
    for _ in range(settings.LOGIN_FAILURE_LIMIT):
        error(get_orders("shopper@example.com", PASSWORD), 401)
    assert locked(get_orders("shopper@example.com", PASSWORD)) == 15 * 60


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgresql_only
def test_parallel_wrong_passwords_cannot_slip_past_the_limit(settings):
    """Each wrong password is counted under the rows' lock: of 16 parallel guesses exactly the
    limit answer 401, the rest are refused as locked."""
    settings.LOGIN_FAILURE_LIMIT = 5
    shop_manager(email="target@example.com")

    def guess(n: int):
        return lambda: get_orders("target@example.com", WRONG, f"10.9.1.{n + 1}").status_code

    statuses = race(*[guess(n) for n in range(16)])
    assert statuses.count(401) == 5, statuses
    assert statuses.count(429) == 11, statuses
    assert row("account").locked_until is not None


def test_a_right_password_reads_the_locks_without_a_query_of_their_own(manager_password):
    """The locks come with the password's own query: counted failures change nothing for a
    request whose password is right, and it writes no row."""
    manager, raw = manager_password
    here = "192.0.2.13"
    assert get_orders(manager.email, raw, here).status_code == 200  # warm the caches
    with CaptureQueriesContext(connection) as before:
        assert get_orders(manager.email, raw, here).status_code == 200
    error(get_orders(manager.email, WRONG, here), 401)
    rows = list(LoginLimit.objects.values_list("kind", "failures", "last_attempt_at"))
    with CaptureQueriesContext(connection) as after:
        assert get_orders(manager.email, raw, here).status_code == 200
    assert len(after) == len(before)
    limits = [q["sql"] for q in after if "accounts_loginlimit" in q["sql"]]
    assert len(limits) == 1, limits
    assert "accounts_apppassword" in limits[0]  # read with the password, not on its own
    assert list(LoginLimit.objects.values_list("kind", "failures", "last_attempt_at")) == rows
