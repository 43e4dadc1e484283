"""erp.core.filing and erp.core.filing_providers: one attempt's outcome on a filing row, the
resend rule, the task's retry rule, the credentials check and sealing, and the provider base's
HTTP sorting. The apps' own flows (invoices at myDATA, HR events at ERGANI) are tested in
tests/erp/invoicing and tests/erp/hr."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
import requests
import responses

from common import sealed
from common.errors import ServiceError
from erp.core import filing
from erp.core.filing_providers import Error, FilingProvider, NotConfigured, Transient
from erp.hr.choices import SubmissionStatus
from erp.invoicing.choices import TransmissionStatus

URL = "https://authority.example.com/api/Send"


class Row:
    """A filing row as the flow sees it: its fields, and how often it was saved."""

    def __init__(self) -> None:
        self.status = filing.PENDING
        self.errors: list = []
        self.attempts = 0
        self.last_error = "an earlier failure"
        self.last_attempt_at = None
        self.saved = 0
        self.number = ""

    def save(self) -> None:
        self.saved += 1


@dataclass(frozen=True)
class Verdict:
    accepted: bool
    number: str = ""
    errors: tuple[Error, ...] = field(default_factory=tuple)


def run(row: Row, call):
    def accepted(verdict: Verdict) -> None:
        row.number = verdict.number

    return filing.attempt(row, call, accepted=accepted)


def raising(exc: Exception):
    def call():
        raise exc

    return call


# --- One attempt --------------------------------------------------------------------------------


def test_an_accepted_filing_is_sent_with_the_authoritys_identifiers():
    row = Row()
    row.errors = [{"code": "old", "message": "an earlier failure"}]
    assert run(row, lambda: Verdict(accepted=True, number="P-1")) == ("sent", "")
    assert (row.status, row.number, row.errors, row.last_error) == ("sent", "P-1", [], "")
    assert (row.attempts, row.saved) == (1, 1)
    assert row.last_attempt_at is not None


def test_a_rejection_keeps_every_reason():
    row = Row()
    verdict = Verdict(accepted=False, errors=(Error("afm", "Bad AFM."), Error("x", "y" * 600)))
    status, detail = run(row, lambda: verdict)
    assert (status, row.status, row.number) == ("rejected", "rejected", "")
    assert row.errors == [
        {"code": "afm", "message": "Bad AFM."},
        {"code": "x", "message": "y" * 600},
    ]
    assert detail == row.last_error == ("Bad AFM.; " + "y" * 600)[:500]


def test_a_transient_failure_stays_pending_for_a_retry():
    row = Row()
    assert run(row, raising(Transient("unreachable"))) == ("retry", "unreachable")
    assert (row.status, row.errors, row.attempts, row.saved) == ("pending", [], 1, 1)


def test_refused_credentials_fail_the_filing_at_once():
    row = Row()
    message = "The authority refused the credentials (HTTP 401). " + "z" * 600
    assert run(row, raising(NotConfigured(message))) == ("failed", message[:500])
    assert row.status == "failed"
    assert row.errors == [{"code": "credentials", "message": message[:500]}]


def test_only_a_rejected_or_failed_filing_is_sent_again():
    assert [filing.resendable(status) for status in filing.STATUSES] == [
        False,
        False,
        True,
        True,
    ]


@pytest.mark.parametrize("choices", [TransmissionStatus, SubmissionStatus])
def test_the_apps_statuses_carry_the_filing_statuses(choices):
    assert set(filing.STATUSES) <= set(choices.values)


# --- The task -----------------------------------------------------------------------------------


class Task:
    max_retries = 3

    def __init__(self, *, retries: int, eager: bool = False) -> None:
        self.request = SimpleNamespace(retries=retries, is_eager=eager)
        self.retried: list = []

    def retry(self, *, exc, countdown):
        self.retried.append((str(exc), countdown))
        return RuntimeError("retry scheduled")


def test_the_backoff_doubles_up_to_its_cap_and_jitters_by_a_quarter_at_most():
    assert [filing.backoff(n) for n in (0, 1, 5, 6, 10)] == [30, 60, 960, 1800, 1800]
    assert filing.backoff(3, base=5, cap=300) == 40
    assert all(120 <= filing.backoff(2, jitter=True) <= 150 for _ in range(50))


def test_a_final_outcome_is_answered_as_it_is():
    task, given_up = Task(retries=0), []
    assert filing.task_end(task, "sent", "", countdown=30, give_up=given_up.append) == "sent"
    assert (task.retried, given_up) == ([], [])


def test_a_retry_waits_on_a_worker():
    task, given_up = Task(retries=1), []
    with pytest.raises(RuntimeError, match="retry scheduled"):
        filing.task_end(task, "retry", "HTTP 503", countdown=60, give_up=given_up.append)
    assert (task.retried, given_up) == ([("HTTP 503", 60)], [])


@pytest.mark.parametrize("task", [Task(retries=3), Task(retries=0, eager=True)])
def test_after_the_last_retry_or_run_eagerly_the_filing_is_given_up(task):
    given_up = []
    assert filing.task_end(task, "retry", "HTTP 503", countdown=60, give_up=given_up.append) == (
        "failed"
    )
    assert (task.retried, given_up) == ([], ["HTTP 503"])


# --- Credentials --------------------------------------------------------------------------------


class Authority(FilingProvider):
    name = "authority"
    title = "The authority"
    authority = "The authority"
    credential_fields = ("user", "key")
    default_environment = "test"

    def __init__(self, credentials=None, *, environment=None, failure=None):
        super().__init__(credentials, environment=environment)
        self.failure = failure

    def test_credentials(self) -> str:
        if self.failure:
            raise self.failure
        return "Accepted."


def test_the_credentials_check_answers_ok_refused_or_502():
    assert filing.credentials_test(Authority(), unavailable="gone") == {
        "provider": "authority",
        "ok": True,
        "message": "Accepted.",
    }
    refused = Authority(failure=NotConfigured("No key."))
    assert filing.credentials_test(refused, unavailable="gone") == {
        "provider": "authority",
        "ok": False,
        "message": "No key.",
    }
    with pytest.raises(ServiceError) as raised:
        filing.credentials_test(Authority(failure=Transient("Down.")), unavailable="gone")
    assert (raised.value.status_code, raised.value.code, raised.value.detail) == (
        502,
        "gone",
        "Down.",
    )


def test_the_credentials_sent_replace_the_stored_ones_sealed():
    row = SimpleNamespace(credentials=sealed.seal({"user": "u1", "key": "k1"}, purpose="p"))
    fields = {"prefix_key": "k2", "name": "Acme"}
    filing.credentials_update(row, fields, prefix="prefix_", names=("user", "key"), purpose="p")
    assert fields == {"name": "Acme"}
    assert sealed.unseal(row.credentials, purpose="p") == {"user": "u1", "key": "k2"}
    unchanged = row.credentials
    filing.credentials_update(row, {}, prefix="prefix_", names=("user", "key"), purpose="p")
    assert row.credentials == unchanged


# --- The provider base --------------------------------------------------------------------------


def test_a_provider_knows_its_environment_and_missing_credentials():
    assert Authority().environment == "test"
    assert Authority(environment="prod").environment == "prod"
    assert Authority({"user": "u"}).missing_credentials() == ["key"]
    assert Authority({"user": "u", "key": "k"}).missing_credentials() == []


@pytest.mark.parametrize(
    ("answer", "raised", "message"),
    [
        ({"status": 401}, NotConfigured, "The authority refused the credentials (HTTP 401)."),
        ({"status": 403}, NotConfigured, "The authority refused the credentials (HTTP 403)."),
        ({"status": 429}, Transient, "The authority answered HTTP 429."),
        ({"status": 502}, Transient, "The authority answered HTTP 502."),
        ({"body": requests.ConnectionError("down")}, Transient, "could not be reached."),
    ],
)
def test_http_failures_are_sorted(answer, raised, message):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, URL, **answer)
        with pytest.raises(raised) as caught:
            Authority().http("POST", URL, timeout=5)
    assert str(caught.value).endswith(message)


def test_other_answers_are_the_providers_to_read():
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, URL, status=422, json={"message": "Bad AFM."})
        response = Authority().http("POST", URL, timeout=5, json={"a": 1})
    assert (response.status_code, response.json()) == (422, {"message": "Bad AFM."})
