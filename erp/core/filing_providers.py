"""The base of every authority provider the ERP files with (erp.core.filing): the tax
authority's (erp.invoicing.providers: the sandbox, myDATA) and the labor registry's
(erp.hr.labor_providers: the sandbox, ERGANI).

A provider is built with its credentials (sealed at rest by its app) and the environment the
settings chose. What it answers is its app's (an invoice's mark, a filing's protocol number);
the failures are the same everywhere:

- `Transient`: the authority could not be reached or failed for now (the network, a timeout,
  a 429 or 5xx, an answer that is not what it should be): the task retries;
- `NotConfigured`: credentials missing, or refused by the authority: retrying will not help;
- a rejection is an answer, `accepted=False` with its `Error`s (code, message).

`http` makes one call through common.net (the guarded client) and sorts the HTTP failures
that way; a provider handles what is left (its 4xx rejections).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import requests

from common import net


class Transient(Exception):
    """The authority could not be reached or failed for now: try again later."""


class NotConfigured(Exception):
    """The provider lacks credentials, or the authority refused them."""


@dataclass(frozen=True)
class Error:
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class FilingProvider(ABC):
    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    #: How its messages name the authority ("myDATA", "ERGANI").
    authority: ClassVar[str] = ""
    #: The credentials it needs (all required), as its app's settings route takes them.
    credential_fields: ClassVar[tuple[str, ...]] = ()
    #: The environment when none is given.
    default_environment: ClassVar[str] = ""

    def __init__(
        self, credentials: dict[str, str] | None = None, *, environment: str | None = None
    ) -> None:
        self.credentials = dict(credentials or {})
        self.environment = self.default_environment if environment is None else environment

    def missing_credentials(self) -> list[str]:
        return [name for name in self.credential_fields if not self.credentials.get(name)]

    def http(self, method: str, url: str, *, timeout: float, **kwargs: Any) -> requests.Response:
        """One call: `Transient` when unreachable or on a 429 or 5xx, `NotConfigured` on a 401
        or 403 (`credentials_refused`); any other answer is the provider's to read."""
        try:
            response = net.request(method, url, timeout=timeout, **kwargs)
        except net.OutboundError:
            raise Transient(f"{self.authority} could not be reached.") from None
        if response.status_code in (401, 403):
            raise NotConfigured(self.credentials_refused(response))
        if response.status_code == 429 or response.status_code >= 500:
            raise Transient(f"{self.authority} answered HTTP {response.status_code}.")
        return response

    def credentials_refused(self, response: requests.Response) -> str:
        return f"{self.authority} refused the credentials (HTTP {response.status_code})."

    @abstractmethod
    def test_credentials(self) -> str:
        """A real call that the credentials open; answers what was checked."""
        ...
