"""/labor-registry/*: settings (credentials sealed), test-connection, submissions built from HR
events after commit (once each), filed by a task through the sandbox or ERGANI (on recorded
exchanges: tests/erp/hr/recordings, written from the API's documented shapes), retried."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
import requests
import responses

from common.models import OutboxMessage
from erp.hr import labor, tasks
from erp.hr.labor_providers.base import Filing, LaborRegistryProvider
from erp.hr.labor_providers.ergani import ErganiRegistry, document_of
from erp.hr.models import LaborRegistrySettings, LaborSubmission
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import AFMS, AMKAS, BASE, make_employee
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

RECORDINGS = Path(__file__).parent / "recordings"
TRIAL = "https://trialeservices.yeka.gr/WebServicesAPI/api"
PROD = "https://eservices.yeka.gr/WebServicesAPI/api"
EMPLOYER = {
    "employer_name": "Emporion Demo IKE",
    "employer_tax_id": AFMS[0],
    "employer_registry_number": "1234567",
    "branch_code": "0",
}


def recording(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


def hire(capture, **fields):
    fields.setdefault("tax_id", AFMS[1])
    fields.setdefault("social_security_number", AMKAS[0])
    with capture(execute=True):
        return make_employee("Sofia", "Nikolaou", hire_date=date(2025, 6, 2), **fields)


@pytest.fixture
def capture(django_capture_on_commit_callbacks):
    return django_capture_on_commit_callbacks


def use_ergani(hr, environment="trial"):
    response = hr.put(
        f"{BASE}/labor-registry/settings",
        {
            "provider": "ergani",
            "ergani_environment": environment,
            "ergani_username": "emporion-user",
            "ergani_password": "s3cret-password-1",
            **EMPLOYER,
        },
        format="json",
    )
    assert response.status_code == 200, response.content


# --- Settings -----------------------------------------------------------------------------------


def test_settings_default_to_the_sandbox_and_seal_the_credentials(hr):
    body = hr.get(f"{BASE}/labor-registry/settings").json()
    assert (body["provider"], body["credentials_set"], body["auto_submit"]) == (
        "sandbox",
        False,
        True,
    )
    use_ergani(hr)
    body = hr.get(f"{BASE}/labor-registry/settings").json()
    assert body["provider"] == "ergani"
    assert body["ergani_username"] == "emporion-user"
    assert body["ergani_password"] == "****rd-1"
    assert body["credentials_set"] is True
    row = LaborRegistrySettings.objects.get()
    assert b"s3cret" not in bytes(row.credentials)
    assert labor.unseal(row.credentials) == {
        "username": "emporion-user",
        "password": "s3cret-password-1",
    }
    # an empty value removes a credential
    hr.put(f"{BASE}/labor-registry/settings", {"ergani_password": ""}, format="json")
    assert hr.get(f"{BASE}/labor-registry/settings").json()["credentials_set"] is False


def test_settings_refusals(hr, store_client):
    error(hr.put(f"{BASE}/labor-registry/settings", {"employer_tax_id": "123"}, format="json"), 400)
    error(hr.put(f"{BASE}/labor-registry/settings", {"provider": "nope"}, format="json"), 400)
    error(store_client(UserFactory()).get(f"{BASE}/labor-registry/settings"), 403)
    assert not LaborRegistrySettings.objects.exists()


def test_the_provider_interface_is_abstract():
    class Incomplete(LaborRegistryProvider):
        name = "incomplete"

        def test_credentials(self) -> str:
            return ""

    with pytest.raises(TypeError):
        Incomplete()


# --- Events into submissions, through the sandbox -----------------------------------------------


def test_a_hiring_is_filed_after_commit_at_the_sandbox(hr, capture):
    hr.put(f"{BASE}/labor-registry/settings", EMPLOYER, format="json")
    employee = hire(capture)
    submission = LaborSubmission.objects.get()
    assert (submission.kind, submission.status, submission.provider) == (
        "hiring",
        "sent",
        "sandbox",
    )
    assert submission.protocol_number.startswith("SBX-")
    assert submission.payload["employee"]["tax_id"] == AFMS[1]
    assert submission.payload["employer"]["tax_id"] == AFMS[0]
    body = hr.get(f"{BASE}/labor-registry/submissions/{submission.pk}").json()
    assert (body["status"], body["kind"], body["employee"]["id"], body["attempts"]) == (
        "sent",
        "hiring",
        employee.pk,
        1,
    )
    assert body["protocol_number"] == submission.protocol_number


def test_nothing_is_filed_when_the_write_rolls_back(hr):
    # outside a committed transaction the outbox row is written but never published
    make_employee(tax_id=AFMS[1])
    assert LaborSubmission.objects.count() == 0


def test_termination_and_working_time_changes(hr, capture):
    employee = hire(capture)
    with capture(execute=True):
        response = hr.patch(
            f"{BASE}/employees/{employee.pk}", {"weekly_hours": "30"}, format="json"
        )
    assert response.status_code == 200
    with capture(execute=True):
        hr.patch(
            f"{BASE}/employees/{employee.pk}",
            {"termination_date": "2025-12-31", "termination_reason": "resignation"},
            format="json",
        )
    with capture(execute=True):  # unchanged: nothing new
        hr.patch(f"{BASE}/employees/{employee.pk}", {"job_title": "Clerk"}, format="json")
    kinds = list(LaborSubmission.objects.order_by("id").values_list("kind", "status"))
    assert kinds == [("hiring", "sent"), ("working_time", "sent"), ("termination", "sent")]
    change = LaborSubmission.objects.get(kind="working_time")
    assert change.payload["previous_weekly_hours"] == "40.0"
    assert change.payload["employee"]["weekly_hours"] == "30.0"
    listed = hr.get(f"{BASE}/labor-registry/submissions", {"kind": "termination"}).json()
    assert [row["kind"] for row in listed["submissions"]] == ["termination"]
    assert (
        hr.get(f"{BASE}/labor-registry/submissions", {"employee_id": employee.pk}).json()["total"]
        == 3
    )
    assert hr.get(f"{BASE}/labor-registry/submissions", {"status": "failed"}).json()["total"] == 0
    error(hr.get(f"{BASE}/labor-registry/submissions", {"kind": "promotion"}), 400)


def test_a_redelivered_event_files_nothing_twice(hr, capture):
    hire(capture)
    submission = LaborSubmission.objects.get()
    assert OutboxMessage.objects.filter(task=labor.RECORD_TASK).count() == 1
    again = {
        "kind": "hiring",
        "employee_id": submission.employee_id,
        "event_key": submission.event_key,
        "employee": submission.payload["employee"],
        "extra": {},
    }
    assert tasks.labor_record(**again) == submission.pk
    assert tasks.labor_submit(submission_id=LaborSubmission.objects.get().pk) == "skipped"
    assert LaborSubmission.objects.count() == 1


def test_auto_submit_off_files_nothing(hr, capture):
    hr.put(f"{BASE}/labor-registry/settings", {"auto_submit": False}, format="json")
    hire(capture)
    assert LaborSubmission.objects.count() == 0


def test_a_rejection_is_fixed_and_retried(hr, capture):
    employee = hire(capture, social_security_number="")
    submission = LaborSubmission.objects.get()
    assert submission.status == "rejected"
    assert submission.errors == [
        {"code": "missing_field", "message": "employee.social_security_number is required."}
    ]
    error(
        hr.post(f"{BASE}/labor-registry/submissions/999999/retry"),
        404,
        "labor_submission_not_found",
    )
    hr.patch(f"{BASE}/employees/{employee.pk}", {"social_security_number": AMKAS[0]}, format="json")
    with capture(execute=True):
        response = hr.post(f"{BASE}/labor-registry/submissions/{submission.pk}/retry")
    assert response.status_code == 200, response.content
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == ("sent", 2)
    assert submission.payload["employee"]["social_security_number"] == AMKAS[0]
    error(
        hr.post(f"{BASE}/labor-registry/submissions/{submission.pk}/retry"),
        409,
        "submission_not_retryable",
    )


def test_the_submissions_list_query_count_does_not_grow(hr, capture, django_assert_max_num_queries):
    for n in range(10):
        hire(capture, tax_id=AFMS[n % len(AFMS)])
    with django_assert_max_num_queries(8):
        body = hr.get(f"{BASE}/labor-registry/submissions", {"per_page": 100}).json()
    assert body["total"] == 10


def test_sandbox_connection_test(hr):
    assert hr.post(f"{BASE}/labor-registry/test-connection").json() == {
        "provider": "sandbox",
        "ok": True,
        "message": "The sandbox registry needs no credentials.",
    }


# --- ERGANI on recorded exchanges ---------------------------------------------------------------


def _auth(mock, base=TRIAL, **kwargs):
    mock.add(
        responses.POST,
        f"{base}/Authentication",
        body=recording("authentication.json"),
        content_type="application/json",
        match=[
            responses.matchers.json_params_matcher(
                {"Username": "emporion-user", "Password": "s3cret-password-1", "UserType": "01"}
            )
        ],
        **kwargs,
    )


def test_ergani_files_a_hiring(hr, capture):
    use_ergani(hr)
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        _auth(mock)
        mock.add(
            responses.POST,
            f"{TRIAL}/Documents/WebE3N",
            body=recording("submitted.json"),
            content_type="application/json",
            match=[
                responses.matchers.header_matcher(
                    {"Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.ZXJnYW5pLXRyaWFs.c2lnbmF0dXJl"}
                )
            ],
        )
        hire(capture)
        sent = json.loads(mock.calls[1].request.body)
    row = sent["AnaggeliesE3N"]["AnaggeliaE3N"][0]
    assert (row["f_afm"], row["f_amka"], row["f_hiredate"], row["f_afm_ergodoti"]) == (
        AFMS[1],
        AMKAS[0],
        "02/06/2025",
        AFMS[0],
    )
    submission = LaborSubmission.objects.get()
    assert (submission.status, submission.provider, submission.protocol_number) == (
        "sent",
        "ergani",
        json.loads(recording("submitted.json"))[0]["protocol"],
    )
    assert submission.registry_id == "4519732"
    assert submission.registered_at.isoformat() == "2025-06-02T07:15:00+00:00"


def test_ergani_rejection_keeps_its_reason(hr, capture):
    use_ergani(hr, "production")
    with responses.RequestsMock() as mock:
        _auth(mock, PROD)
        mock.add(
            responses.POST,
            f"{PROD}/Documents/WebE3N",
            status=400,
            body=recording("validation_error.json"),
            content_type="application/json",
        )
        hire(capture)
    submission = LaborSubmission.objects.get()
    assert submission.status == "rejected"
    assert submission.errors == [
        {"code": "http_400", "message": json.loads(recording("validation_error.json"))["message"]}
    ]


def test_ergani_termination_documents():
    base = {
        "employer": {"tax_id": AFMS[0]},
        "employee": {
            "tax_id": AFMS[1],
            "hire_date": "2020-01-06",
            "termination_date": "2025-12-31",
        },
    }
    action, body = document_of(Filing("termination", "t:1", base))
    assert action == "WebE5N"
    assert body["AnaggeliesE5N"]["AnaggeliaE5N"][0]["f_apoxwrisidate"] == "31/12/2025"
    base["employee"]["termination_reason"] = "dismissal"
    assert document_of(Filing("termination", "t:1", base))[0] == "WebE6NMP"
    assert document_of(Filing("working_time", "w:1", base))[0] == "WTOWeek"


def test_ergani_transient_failures_fail_eagerly_then_retry_sends(hr, capture):
    use_ergani(hr)
    with responses.RequestsMock() as mock:
        _auth(mock)
        mock.add(responses.POST, f"{TRIAL}/Documents/WebE3N", status=503)
        hire(capture)
    submission = LaborSubmission.objects.get()
    assert submission.status == "failed"  # eager: no broker to wait for a retry
    assert submission.errors[0]["code"] == "unavailable"
    with responses.RequestsMock() as mock:
        _auth(mock)
        mock.add(responses.POST, f"{TRIAL}/Documents/WebE3N", body=requests.ConnectionError("down"))
        with capture(execute=True):
            hr.post(f"{BASE}/labor-registry/submissions/{submission.pk}/retry")
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == ("failed", 2)
    with responses.RequestsMock() as mock:
        _auth(mock)
        mock.add(
            responses.POST,
            f"{TRIAL}/Documents/WebE3N",
            body=recording("submitted.json"),
            content_type="application/json",
        )
        with capture(execute=True):
            hr.post(f"{BASE}/labor-registry/submissions/{submission.pk}/retry")
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == ("sent", 3)


def test_the_task_retries_transient_failures_with_backoff(hr, capture, monkeypatch):
    use_ergani(hr)
    hr.put(f"{BASE}/labor-registry/settings", {"auto_submit": False}, format="json")
    employee = make_employee(tax_id=AFMS[1], social_security_number=AMKAS[0])
    submission = LaborSubmission.objects.create(
        employee=employee, kind="hiring", event_key="k", payload={"employee": {}}, provider="ergani"
    )
    retried = {}

    class Retry(Exception):
        pass

    def fake_retry(*, exc, countdown):
        retried["countdown"] = countdown
        return Retry()

    monkeypatch.setattr(tasks.labor_submit, "retry", fake_retry)
    with responses.RequestsMock() as mock:
        _auth(mock)
        mock.add(responses.POST, f"{TRIAL}/Documents/WebE3N", status=502)
        tasks.labor_submit.push_request(is_eager=False, retries=2)
        try:
            with pytest.raises(Retry):
                tasks.labor_submit.run(submission_id=submission.pk)
        finally:
            tasks.labor_submit.pop_request()
    assert 120 <= retried["countdown"] <= 150
    submission.refresh_from_db()
    assert (submission.status, submission.attempts) == ("pending", 1)
    assert "HTTP 502" in submission.last_error


def test_ergani_wrong_credentials(hr, capture):
    use_ergani(hr)
    with responses.RequestsMock() as mock:
        mock.add(
            responses.POST,
            f"{TRIAL}/Authentication",
            status=401,
            body=recording("authentication_refused.json"),
            content_type="application/json",
        )
        body = hr.post(f"{BASE}/labor-registry/test-connection").json()
        assert body["ok"] is False
        assert json.loads(recording("authentication_refused.json"))["message"] in body["message"]
        hire(capture)
    submission = LaborSubmission.objects.get()
    assert (submission.status, submission.errors[0]["code"]) == ("failed", "credentials")


def test_ergani_connection_test(hr):
    use_ergani(hr)
    with responses.RequestsMock() as mock:
        _auth(mock)
        body = hr.post(f"{BASE}/labor-registry/test-connection").json()
    assert body == {
        "provider": "ergani",
        "ok": True,
        "message": "ERGANI (trial) accepted the credentials.",
    }
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{TRIAL}/Authentication", body=requests.ConnectTimeout("slow"))
        error(hr.post(f"{BASE}/labor-registry/test-connection"), 502, "labor_registry_unavailable")


def test_ergani_without_credentials_is_not_configured(hr):
    hr.put(f"{BASE}/labor-registry/settings", {"provider": "ergani"}, format="json")
    body = hr.post(f"{BASE}/labor-registry/test-connection").json()
    assert body["ok"] is False
    assert "username, password" in body["message"]
    assert ErganiRegistry({}).credential_fields == ("username", "password")
