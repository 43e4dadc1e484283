"""The labor registry: settings, submissions built from HR events, and their filing.

An HR write that hires, terminates or changes an employee's weekly hours calls
`event_recorded` inside its transaction: the event (its kind, the employee as of then, and a
unique event key) goes into the outbox (common.outbox) and is handled after the commit by the
`erp_hr.labor_record` task, which makes the submission once (unique `event_key`: a redelivered
event makes nothing new) and enqueues `erp_hr.labor_submit`. That task files it through the
provider of the settings (erp.hr.labor_providers); a transient failure is retried by Celery
with backoff, and a rejected or failed submission can be sent again (POST .../retry).
"""

from __future__ import annotations

import uuid
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from common import outbox, sealed
from erp.core import filing
from erp.hr.choices import SubmissionStatus
from erp.hr.labor_providers import PROVIDERS
from erp.hr.labor_providers.base import Filing, LaborRegistryProvider, Receipt
from erp.hr.labor_providers.ergani import ErganiRegistry
from erp.hr.models import Employee, LaborRegistrySettings, LaborSubmission
from erp.hr.rules import tax_id_clean
from store.common.errors import not_found, rule_broken
from store.common.problems import Problems

RECORD_TASK = "erp_hr.labor_record"
SUBMIT_TASK = "erp_hr.labor_submit"
PURPOSE = "erp-hr-labor-registry"
unseal = partial(sealed.unseal, purpose=PURPOSE)
mask = sealed.mask

UNAVAILABLE = "labor_registry_unavailable"


# --- Settings -----------------------------------------------------------------------------------


def settings_row() -> LaborRegistrySettings:
    row = LaborRegistrySettings.objects.filter(pk=1).first()
    return row if row is not None else LaborRegistrySettings(pk=1)


def provider_for(name: str | None = None) -> LaborRegistryProvider:
    row = settings_row()
    cls = PROVIDERS[name or row.provider]
    return cls(unseal(row.credentials), environment=row.ergani_environment)


def settings_data() -> dict:
    row = settings_row()
    credentials = unseal(row.credentials)
    return {
        "provider": row.provider,
        "ergani_environment": row.ergani_environment,
        "ergani_username": credentials.get("username", ""),
        "ergani_password": mask(credentials.get("password", "")),
        "credentials_set": bool(credentials.get("username") and credentials.get("password")),
        "employer_name": row.employer_name,
        "employer_tax_id": row.employer_tax_id,
        "employer_registry_number": row.employer_registry_number,
        "branch_code": row.branch_code,
        "auto_submit": row.auto_submit,
        "updated_at": row.updated_at,
    }


@transaction.atomic
def settings_update(*, fields: dict) -> LaborRegistrySettings:
    """Only the fields given change. `ergani_username` and `ergani_password` are sealed (an
    empty value removes one); the employer's tax id is a Greek AFM (python-stdnum)."""
    fields = dict(fields)
    problems = Problems()
    if fields.get("employer_tax_id"):
        try:
            fields["employer_tax_id"] = tax_id_clean(fields["employer_tax_id"])
        except ValueError as exc:
            problems.add("employer_tax_id", str(exc))
    problems.raise_if_any()
    LaborRegistrySettings.objects.get_or_create(pk=1)
    row = LaborRegistrySettings.objects.select_for_update().get(pk=1)
    filing.credentials_update(
        row, fields, prefix="ergani_", names=ErganiRegistry.credential_fields, purpose=PURPOSE
    )
    for name, value in fields.items():
        setattr(row, name, value)
    row.save()
    return row


def connection_test() -> dict:
    """A real call to the configured registry with the stored credentials: {provider, ok,
    message}; 502 `labor_registry_unavailable` when it cannot be reached."""
    return filing.credentials_test(provider_for(), unavailable=UNAVAILABLE)


# --- Events -------------------------------------------------------------------------------------


def employee_snapshot(employee: Employee) -> dict:
    return {
        "id": employee.pk,
        "first_name": employee.first_name,
        "last_name": employee.last_name,
        "tax_id": employee.tax_id,
        "social_security_number": employee.social_security_number,
        "job_title": employee.job_title,
        "employment_type": employee.employment_type,
        "weekly_hours": str(employee.weekly_hours),
        "salary": str(employee.salary) if employee.salary is not None else None,
        "hire_date": employee.hire_date.isoformat() if employee.hire_date else None,
        "termination_date": (
            employee.termination_date.isoformat() if employee.termination_date else None
        ),
        "termination_reason": employee.termination_reason,
    }


def employer_snapshot() -> dict:
    row = settings_row()
    return {
        "name": row.employer_name,
        "tax_id": row.employer_tax_id,
        "registry_number": row.employer_registry_number,
        "branch_code": row.branch_code,
    }


def event_key(kind: str, employee: Employee) -> str:
    if kind == "hiring":
        return f"hiring:{employee.pk}"
    if kind == "termination":
        return f"termination:{employee.pk}:{employee.termination_date.isoformat()}"
    return f"working_time:{employee.pk}:{uuid.uuid4().hex}"


def event_recorded(*, kind: str, employee: Employee, extra: dict | None = None) -> None:
    """Inside the HR write's transaction: the event for the registry, handled after commit
    (nothing when the settings' `auto_submit` is off)."""
    if not settings_row().auto_submit:
        return
    key = event_key(kind, employee)
    outbox.enqueue(
        RECORD_TASK,
        kwargs={
            "kind": kind,
            "employee_id": employee.pk,
            "event_key": key,
            "employee": employee_snapshot(employee),
            "extra": extra or {},
        },
        dedupe_key=f"{RECORD_TASK}:{key}",
    )


def submission_record(
    *, kind: str, employee_id: int, event_key: str, employee: dict, extra: dict
) -> int | None:
    """The task of an event: its submission, made once, and its filing enqueued. Answers the
    submission's id (None when the employee is gone)."""
    existing = LaborSubmission.objects.filter(event_key=event_key).values_list("pk", flat=True)
    if existing:
        return existing[0]
    if not Employee.objects.filter(pk=employee_id).exists():
        return None
    try:
        with transaction.atomic():
            submission = LaborSubmission.objects.create(
                employee_id=employee_id,
                kind=kind,
                event_key=event_key,
                payload={"employer": employer_snapshot(), "employee": employee, **extra},
                provider=settings_row().provider,
            )
            _enqueue_submit(submission)
    except IntegrityError:  # the same event, recorded by a concurrent delivery
        return LaborSubmission.objects.get(event_key=event_key).pk
    return submission.pk


def _enqueue_submit(submission: LaborSubmission) -> None:
    outbox.enqueue(
        SUBMIT_TASK,
        kwargs={"submission_id": submission.pk},
        dedupe_key=f"{SUBMIT_TASK}:{submission.pk}",
    )


# --- Filing -------------------------------------------------------------------------------------


def submission_run(*, submission_id: int) -> tuple[str, str]:
    """One attempt (the task): ("sent" | "rejected" | "failed" | "retry" | "skipped", detail).
    The row stays locked during the call, so a redelivered task waits and then finds it sent
    (idempotent: only a pending submission is filed)."""
    with transaction.atomic():
        submission = (
            LaborSubmission.objects.select_for_update()
            .filter(pk=submission_id, status=SubmissionStatus.PENDING)
            .first()
        )
        if submission is None:
            return "skipped", ""
        provider = provider_for(submission.provider)
        document = Filing(
            kind=submission.kind, reference=submission.event_key, data=submission.payload
        )

        def registered(receipt: Receipt) -> None:
            submission.protocol_number = receipt.protocol_number
            submission.registry_id = receipt.registry_id
            submission.registered_at = receipt.registered_at or timezone.now()

        return filing.attempt(submission, lambda: provider.submit(document), accepted=registered)


def submission_gave_up(*, submission_id: int, error: str) -> None:
    """Every retry failed: `failed` (POST .../retry sends it again)."""
    filing.gave_up(
        LaborSubmission.objects.filter(pk=submission_id), error=error, updated_at=timezone.now()
    )


@transaction.atomic
def submission_retry(*, submission_id: int) -> LaborSubmission:
    """Send a rejected or failed submission again (409 `submission_not_retryable` when
    pending or sent), to the registry of the settings now, with the employer's details and the
    employee's record as they are now (what was fixed since is filed)."""
    submission = LaborSubmission.objects.select_for_update().filter(pk=submission_id).first()
    if submission is None:
        raise not_found("labor_submission", submission_id)
    if not filing.resendable(submission.status):
        raise rule_broken(
            f"The submission is {submission.status}: only rejected or failed ones are sent again.",
            code="submission_not_retryable",
            status=409,
        )
    employee = Employee.objects.get(pk=submission.employee_id)
    current = employee_snapshot(employee)
    previous = dict(submission.payload.get("employee") or {})
    # the event's own facts stay as they were (the dates and hours filed)
    for name in ("hire_date", "termination_date", "weekly_hours"):
        if name in previous:
            current[name] = previous[name]
    submission.payload = {
        **submission.payload,
        "employer": employer_snapshot(),
        "employee": current,
    }
    submission.provider = settings_row().provider
    submission.status = SubmissionStatus.PENDING
    submission.errors, submission.last_error = [], ""
    submission.save()
    _enqueue_submit(submission)
    return submission
