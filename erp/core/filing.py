"""Filing with an authority: one record sent through a provider (erp.core.filing_providers),
each attempt and its outcome kept on the record's filing row, retried while the failure may
pass. The ERP files invoices with the tax authority (erp.invoicing: a Transmission per
document) and HR events with the labor registry (erp.hr.labor: a LaborSubmission per event).

A filing row has `status`, `errors` ([{code, message}]), `attempts`, `last_error` and
`last_attempt_at`. Its status goes pending -> sent (the authority's identifiers, which the
app records) | rejected (the authority's reasons) | failed (credentials missing or refused, or
unreachable after every retry). A rejected or failed filing may be sent again (`resendable`);
a pending or sent one may not. An app's status choices carry these values and may add its own
(an invoice's filing can be cancelled at the authority).

The app's task makes one `attempt` on the locked pending row and ends with `task_end`: a
transient failure is retried with backoff on a worker, and given up (`gave_up`: failed) after
the last retry, or at once when run eagerly (no broker: nothing could wait for the retry).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from django.db.models import QuerySet
from django.utils import timezone

from common import sealed
from erp.core.filing_providers import Error, FilingProvider, NotConfigured, Transient
from store.common.errors import rule_broken

PENDING = "pending"
SENT = "sent"
REJECTED = "rejected"
FAILED = "failed"
STATUSES = (PENDING, SENT, REJECTED, FAILED)
#: An attempt's outcome besides the statuses: try again later (the row stays pending).
RETRY = "retry"
#: A task found nothing pending to send (sent already, or given up).
SKIPPED = "skipped"
ERROR_LENGTH = 500  # last_error's max_length


class Verdict(Protocol):
    """What a provider answers for one filing (an invoice's Outcome, an HR filing's Receipt)."""

    @property
    def accepted(self) -> bool: ...

    @property
    def errors(self) -> tuple[Error, ...]: ...


V = TypeVar("V", bound=Verdict)


def resendable(status: str) -> bool:
    """Whether a filing may be sent again: not while it is pending, nor once it is sent."""
    return status not in (PENDING, SENT)


def attempt(row: Any, call: Callable[[], V], *, accepted: Callable[[V], None]) -> tuple[str, str]:
    """One attempt on a locked pending filing `row` (the caller saves nothing): counted, the
    provider `call`ed, its outcome recorded and saved. `call` answers the authority's verdict;
    for an accepted one `accepted(verdict)` records the authority's identifiers on the row.
    Answers (status | RETRY, last error)."""
    row.attempts += 1
    row.last_attempt_at = timezone.now()
    try:
        verdict = call()
    except Transient as exc:  # stays pending
        status, error = RETRY, str(exc)[:ERROR_LENGTH]
    except NotConfigured as exc:
        status, error = FAILED, str(exc)[:ERROR_LENGTH]
        row.status, row.errors = status, [{"code": "credentials", "message": error}]
    else:
        if verdict.accepted:
            status, error = SENT, ""
            accepted(verdict)
            row.errors = []
        else:
            status = REJECTED
            error = "; ".join(e.message for e in verdict.errors)[:ERROR_LENGTH]
            row.errors = [e.as_dict() for e in verdict.errors]
        row.status = status
    row.last_error = error
    row.save()
    return status, error


def gave_up(rows: QuerySet[Any], *, error: str, **also: Any) -> None:
    """Every retry failed: the pending filings among `rows` are failed (they can be sent
    again). `also`: more fields to set (an `updated_at`, which update() leaves alone)."""
    rows.filter(status=PENDING).update(
        status=FAILED,
        last_error=error[:ERROR_LENGTH],
        errors=[{"code": "unavailable", "message": error[:ERROR_LENGTH]}],
        **also,
    )


def credentials_test(provider: FilingProvider, *, unavailable: str) -> dict[str, Any]:
    """A real call to the authority with the stored credentials: {provider, ok, message};
    502 `unavailable` (the app's code) when it cannot be reached."""
    try:
        message = provider.test_credentials()
    except NotConfigured as exc:
        return {"provider": provider.name, "ok": False, "message": str(exc)}
    except Transient as exc:
        raise rule_broken(str(exc), code=unavailable, status=502) from exc
    return {"provider": provider.name, "ok": True, "message": message}


def credentials_update(
    row: Any, fields: dict[str, Any], *, prefix: str, names: Iterable[str], purpose: str
) -> None:
    """Takes the credentials sent (`<prefix><name>`) out of a settings write's `fields` into
    the settings `row`'s sealed credentials (common.sealed under `purpose`): those sent
    replace the stored ones (an empty value removes one), the others stay."""
    secrets = {name: fields.pop(prefix + name) for name in names if prefix + name in fields}
    if secrets:
        stored = sealed.unseal(row.credentials, purpose=purpose)
        row.credentials = sealed.seal({**stored, **secrets}, purpose=purpose)


# --- The task -----------------------------------------------------------------------------------


class RetryLater(Exception):
    """A filing task's transient failure, handed to Celery's retry."""


def backoff(retries: int, *, base: float = 30, cap: float = 1800, jitter: bool = False) -> float:
    """Seconds before the next retry: `base` doubling per retry, at most `cap`; with `jitter`
    up to a quarter more, so that filings failed together do not retry together."""
    countdown = min(base * (1 << retries), cap)
    if jitter:
        countdown += random.uniform(0, countdown / 4)  # noqa: S311 - jitter, not a secret
    return countdown


def task_end(
    task: Any, outcome: str, detail: str, *, countdown: float, give_up: Callable[[str], None]
) -> str:
    """What a bound filing task answers for one attempt's (outcome, detail): anything but RETRY
    as it is; a retry in `countdown` seconds on a worker, but run eagerly or after the task's
    last retry `give_up(detail)` (the filing is failed) and "failed"."""
    if outcome != RETRY:
        return outcome
    if task.request.is_eager or task.request.retries >= task.max_retries:
        give_up(detail)
        return FAILED
    raise task.retry(exc=RetryLater(detail), countdown=countdown)
