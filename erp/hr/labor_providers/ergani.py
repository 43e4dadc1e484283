"""Greece's ERGANI labor registry over its REST API (JSON, through common.net: the guarded client).

- `POST {base}/Authentication` with `{Username, Password, UserType}` answers `{accessToken,
  accessTokenExpired, refreshToken, ...}`; every later call carries `Authorization: Bearer`.
  A token is taken once per provider instance (one task attempt).
- `POST {base}/Documents/{action}` files one declaration wrapped as the registry expects:
  hiring `WebE3N` (`{"AnaggeliesE3N": {"AnaggeliaE3N": [...]}}`), termination `WebE5N`
  (resignation) or `WebE6NMP` (dismissal with notice), working-time change `WTOWeek`
  (`{"WTOS": {"WTO": [...]}}`). It answers `[{id, protocol, submitDate}]`: the protocol number.
- A 400/422 carries the registry's reasons (`{"message": ...}`): a rejection. A 401/403 is the
  credentials (NotConfigured); a network failure, a timeout, a 429 or 5xx, or a body that is
  not the JSON expected is Transient (the task retries).

The base URL is settings.ERGANI_TRIAL_URL or ERGANI_PROD_URL by the environment chosen in the
settings. Tested on recorded exchanges (tests/erp/hr/recordings); never called in tests.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

import requests
from django.conf import settings

from erp.hr.labor_providers.base import (
    Error,
    Filing,
    LaborRegistryProvider,
    NotConfigured,
    Receipt,
    Transient,
)

ATHENS = ZoneInfo("Europe/Athens")
EMPLOYER_USER_TYPE = "01"


def _gr_date(value: str | None) -> str:
    """ERGANI's dates: dd/mm/yyyy."""
    if not value:
        return ""
    return date.fromisoformat(value).strftime("%d/%m/%Y")


def _common(data: dict) -> dict:
    employer, employee = data.get("employer", {}), data.get("employee", {})
    return {
        "f_aa_pararthmatos": employer.get("branch_code") or "0",
        "f_afm_ergodoti": employer.get("tax_id", ""),
        "f_ame": employer.get("registry_number", ""),
        "f_eponymo": employee.get("last_name", ""),
        "f_onoma": employee.get("first_name", ""),
        "f_afm": employee.get("tax_id", ""),
        "f_amka": employee.get("social_security_number", ""),
    }


def document_of(filing: Filing) -> tuple[str, dict]:
    """(the Documents action, its JSON body) of one filing."""
    data = filing.data
    employee = data.get("employee", {})
    row = _common(data)
    if filing.kind == "hiring":
        row |= {
            "f_hiredate": _gr_date(employee.get("hire_date")),
            "f_eidikothta": employee.get("job_title", ""),
            "f_apasxolisi": "1" if employee.get("employment_type") != "part_time" else "2",
            "f_xronos_ergasias": str(employee.get("weekly_hours", "")),
            "f_apodoxes": str(employee.get("salary") or ""),
            "f_comments": filing.reference,
        }
        return "WebE3N", {"AnaggeliesE3N": {"AnaggeliaE3N": [row]}}
    if filing.kind == "termination":
        row |= {
            "f_hiredate": _gr_date(employee.get("hire_date")),
            "f_apoxwrisidate": _gr_date(employee.get("termination_date")),
            "f_comments": filing.reference,
        }
        if employee.get("termination_reason") == "dismissal":
            return "WebE6NMP", {"AnaggeliesE6NMP": {"AnaggeliaE6NMP": [row]}}
        return "WebE5N", {"AnaggeliesE5N": {"AnaggeliaE5N": [row]}}
    row |= {
        "f_from_date": _gr_date(data.get("effective_date")),
        "f_weekly_hours": str(employee.get("weekly_hours", "")),
        "f_previous_weekly_hours": str(data.get("previous_weekly_hours", "")),
        "f_comments": filing.reference,
    }
    return "WTOWeek", {"WTOS": {"WTO": [row]}}


def _message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300]
    if isinstance(body, dict):
        return str(body.get("message") or body.get("Message") or body)[:300]
    return str(body)[:300]


def _registered_at(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, "%d/%m/%Y %H:%M").replace(tzinfo=ATHENS)
    except (TypeError, ValueError):
        return None


class ErganiRegistry(LaborRegistryProvider):
    name = "ergani"
    title = "ERGANI (Greece)"
    authority = "ERGANI"
    credential_fields = ("username", "password")

    def __init__(self, credentials: dict | None = None, *, environment: str | None = None):
        super().__init__(credentials, environment=environment)
        self._token = ""

    @property
    def base_url(self) -> str:
        url = (
            settings.ERGANI_PROD_URL
            if self.environment == "production"
            else (settings.ERGANI_TRIAL_URL)
        )
        return url.rstrip("/")

    def _call(self, method: str, endpoint: str, **kwargs) -> requests.Response:
        return self.http(
            method, f"{self.base_url}/{endpoint}", timeout=settings.ERGANI_HTTP_TIMEOUT, **kwargs
        )

    def credentials_refused(self, response: requests.Response) -> str:
        return f"ERGANI refused the credentials (HTTP {response.status_code}): {_message(response)}"

    def authenticate(self) -> str:
        missing = self.missing_credentials()
        if missing:
            raise NotConfigured(
                f"ERGANI has no {', '.join(missing)}: set them in PUT /labor-registry/settings."
            )
        response = self._call(
            "POST",
            "Authentication",
            json={
                "Username": self.credentials["username"],
                "Password": self.credentials["password"],
                "UserType": EMPLOYER_USER_TYPE,
            },
        )
        if response.status_code >= 400:
            raise NotConfigured(f"ERGANI refused the log-in: {_message(response)}")
        try:
            token = response.json().get("accessToken") or ""
        except (ValueError, AttributeError):
            token = ""
        if not token:
            raise Transient("ERGANI answered the log-in without an access token.")
        self._token = token
        return token

    def submit(self, filing: Filing) -> Receipt:
        token = self._token or self.authenticate()
        action, body = document_of(filing)
        response = self._call(
            "POST",
            f"Documents/{action}",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
        )
        if response.status_code >= 400:
            return Receipt(
                accepted=False,
                errors=(Error(f"http_{response.status_code}", _message(response)),),
            )
        try:
            rows = response.json()
        except ValueError as exc:
            raise Transient("ERGANI answered something that is not JSON.") from exc
        row = rows[0] if isinstance(rows, list) and rows else rows
        if not isinstance(row, dict) or not row.get("protocol"):
            raise Transient("ERGANI answered without a protocol number.")
        return Receipt(
            accepted=True,
            protocol_number=str(row["protocol"])[:64],
            registry_id=str(row.get("id") or "")[:64],
            registered_at=_registered_at(row.get("submitDate")),
        )

    def test_credentials(self) -> str:
        self.authenticate()
        return f"ERGANI ({self.environment}) accepted the credentials."
