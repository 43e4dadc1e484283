"""A local labor registry (the default): checks what the real one would refuse first and
answers a protocol number, sending nothing anywhere."""

from __future__ import annotations

import hashlib

from django.utils import timezone

from erp.hr.labor_providers.base import Error, Filing, LaborRegistryProvider, Receipt

REQUIRED = {
    "hiring": ("employee.tax_id", "employee.social_security_number", "employee.hire_date"),
    "termination": ("employee.tax_id", "employee.termination_date"),
    "working_time": ("employee.tax_id", "employee.weekly_hours"),
}


def _get(data: dict, dotted: str):
    value = data
    for part in dotted.split("."):
        value = (value or {}).get(part)
    return value


class SandboxRegistry(LaborRegistryProvider):
    name = "sandbox"
    title = "Sandbox (local)"

    def submit(self, filing: Filing) -> Receipt:
        missing = [f for f in REQUIRED.get(filing.kind, ()) if _get(filing.data, f) in ("", None)]
        if missing:
            return Receipt(
                accepted=False,
                errors=tuple(Error("missing_field", f"{name} is required.") for name in missing),
            )
        digest = hashlib.sha256(filing.reference.encode()).hexdigest()
        number = int(digest[:12], 16) % 10**9
        return Receipt(
            accepted=True,
            protocol_number=f"SBX-{number:09d}",
            registry_id=digest[:16],
            registered_at=timezone.now(),
        )

    def test_credentials(self) -> str:
        return "The sandbox registry needs no credentials."
