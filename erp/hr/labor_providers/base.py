"""The labor registry's interface: what every provider (the sandbox, ERGANI) does.

A provider takes a `Filing` (one submission: its kind and what is filed, built from the HR
event by erp.hr.labor) and answers a `Receipt`: accepted (the registry's protocol number, its
id and time) or rejected (its reasons). A failure that may pass (the network, a timeout, a 429
or 5xx) raises `Transient`: the Celery task retries it. Missing or refused credentials raise
`NotConfigured`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar


class Transient(Exception):
    """The registry could not be reached or failed for now: try again later."""


class NotConfigured(Exception):
    """The provider lacks credentials, or the registry refused them."""


@dataclass(frozen=True)
class Error:
    code: str
    message: str

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


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


class LaborRegistryProvider(ABC):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: The credentials it needs (all required), as PUT /labor-registry/settings takes them.
    credential_fields: ClassVar[tuple[str, ...]] = ()

    def __init__(self, credentials: dict | None = None, *, environment: str = "trial"):
        self.credentials = dict(credentials or {})
        self.environment = environment

    @abstractmethod
    def submit(self, filing: Filing) -> Receipt: ...

    @abstractmethod
    def test_credentials(self) -> str:
        """A real call that the credentials open; answers what was checked."""
        ...
