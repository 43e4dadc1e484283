"""A busy database never leaves a transmission `pending`: the task retries an OperationalError
("database is locked", a serialization failure) with a short back-off on a worker, and after the
last retry, or at once when run eagerly, the transmission is `failed` (sent again by POST)."""

from __future__ import annotations

import pytest
from celery.exceptions import Retry
from django.db import OperationalError

from erp.invoicing import services, tasks
from erp.invoicing.models import Transmission
from tests.erp.invoicing.helpers import INVOICES, configure, issued, on_commit

pytestmark = pytest.mark.django_db

LOCKED = "database is locked"


@pytest.fixture
def pending(api, erp_on):
    """An issued invoice whose transmission is pending, its task not run yet."""
    configure()
    invoice = issued(api)
    services.transmission_request(invoice_id=invoice["id"])
    assert Transmission.objects.get(invoice_id=invoice["id"]).status == "pending"
    return invoice["id"]


@pytest.fixture
def busy(monkeypatch):
    """The service answers OperationalError the first `times` calls, then runs as it does."""
    run = services.transmission_run
    calls = []

    def set_busy(times: int, message: str = LOCKED) -> list:
        def transmission_run(*, invoice_id):
            calls.append(invoice_id)
            if len(calls) <= times:
                raise OperationalError(message)
            return run(invoice_id=invoice_id)

        monkeypatch.setattr(services, "transmission_run", transmission_run)
        return calls

    return set_busy


@pytest.fixture
def retried(monkeypatch):
    """The countdowns the task asked Celery to retry with (the Retry is still raised)."""
    countdowns = []

    def retry(exc=None, countdown=None, **kwargs):
        countdowns.append(countdown)
        return Retry(exc=exc, when=countdown)

    monkeypatch.setattr(tasks.transmit, "retry", retry)
    return countdowns


def run_on_a_worker(invoice_id: int, *, retries: int):
    """The task as a worker runs its delivery number `retries` (not eagerly)."""
    tasks.transmit.push_request(retries=retries, is_eager=False)
    try:
        return tasks.transmit.run(invoice_id=invoice_id)
    finally:
        tasks.transmit.pop_request()


@pytest.mark.parametrize("message", [LOCKED, "could not serialize access due to concurrent update"])
def test_a_busy_database_is_retried_then_the_transmission_is_sent(pending, busy, retried, message):
    calls = busy(1, message)
    with pytest.raises(Retry):
        run_on_a_worker(pending, retries=0)
    assert retried == [tasks.DATABASE_BACKOFF_SECONDS]
    waiting = Transmission.objects.get(invoice_id=pending)
    assert (waiting.status, waiting.attempts, waiting.last_error) == ("pending", 0, "")

    assert run_on_a_worker(pending, retries=1) == "sent"
    assert len(calls) == 2
    sent = Transmission.objects.get(invoice_id=pending)
    assert (sent.status, sent.attempts) == ("sent", 1)
    assert sent.mark


def test_the_back_off_doubles_and_is_bounded(pending, busy, retried):
    busy(tasks.MAX_RETRIES)
    for retries in range(tasks.MAX_RETRIES):
        with pytest.raises(Retry):
            run_on_a_worker(pending, retries=retries)
    assert retried == [5, 10, 20, 40, 80, 160, 300, 300]
    assert Transmission.objects.get(invoice_id=pending).status == "pending"


def test_after_the_last_retry_the_transmission_is_failed_not_pending(api, pending, busy, retried):
    busy(tasks.MAX_RETRIES + 1)
    assert run_on_a_worker(pending, retries=tasks.MAX_RETRIES) == "failed"
    assert retried == []
    transmission = api.get(f"{INVOICES}/{pending}").json()["transmission"]
    assert transmission["status"] == "failed"
    assert LOCKED in transmission["last_error"]
    assert transmission["errors"] == [
        {"code": "unavailable", "message": f"The database answered: {LOCKED}"}
    ]


def test_run_eagerly_a_busy_database_fails_the_transmission_which_can_be_sent_again(
    api, erp_on, busy
):
    configure()
    invoice = issued(api)
    busy(1)
    with on_commit():
        assert api.post(f"{INVOICES}/{invoice['id']}/transmit").status_code == 202
    failed = api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]
    assert (failed["status"], failed["attempts"]) == ("failed", 0)
    assert LOCKED in failed["last_error"]

    with on_commit():
        assert api.post(f"{INVOICES}/{invoice['id']}/transmit").status_code == 202
    assert api.get(f"{INVOICES}/{invoice['id']}").json()["transmission"]["status"] == "sent"
