"""The labor registry's interface: what every provider (the sandbox, ERGANI) does.

A provider takes a `Filing` (one submission: its kind and what is filed, built from the HR
event by erp.hr.labor) and answers a `Receipt`: accepted (the registry's protocol number, its
id and time) or rejected (its reasons). A failure that may pass (the network, a timeout, a 429
or 5xx) raises `Transient`: the Celery task retries it. Missing or refused credentials raise
`NotConfigured`. The base, the failures and `Error` are every ERP filing provider's
(erp.core.filing_providers).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from datetime import datetime

from erp.core.filing_providers import Error, FilingProvider, NotConfigured, Transient

__all__ = [
    "Error",
    "Filing",
    "LaborRegistryProvider",
    "NotConfigured",
    "Receipt",
    "Transient",
]


@dataclass(frozen=True)
class Filing:
    kind: str  # erp.hr.choices.SubmissionKind
    reference: str  # the submission's event key (our side's identifier)
    data: dict  # employer and employee as of the event (erp.hr.labor.filing_data)


@dataclass(frozen=True)
class Receipt:
    accepted: bool
    protocol_number: str = ""
    registry_id: str = ""
    registered_at: datetime | None = None
    errors: tuple[Error, ...] = field(default_factory=tuple)


class LaborRegistryProvider(FilingProvider):
    """`credential_fields` as PUT /labor-registry/settings takes them (ergani_<name>)."""

    default_environment = "trial"

    @abstractmethod
    def submit(self, filing: Filing) -> Receipt: ...
