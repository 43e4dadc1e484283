"""The VAT-number registries' interface: what every provider (the sandbox, Greece's AADE
registry, the EU's VIES) does.

A provider takes a number already checked for format (python-stdnum) and answers a `Result`:
whether the registry knows it as valid, and the holder's name and address when the registry
discloses them. A failure that may pass (the network, a timeout, a 5xx, a busy member state)
raises `Unavailable` (the route answers 503); an answer the adapter cannot read, or a refusal
of its credentials, raises `BadAnswer` (502).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar


class Unavailable(Exception):
    """The registry could not be reached or is busy: try again later (503)."""


class BadAnswer(Exception):
    """The registry answered something unreadable, or refused our credentials (502)."""


@dataclass(frozen=True)
class Result:
    valid: bool
    name: str = ""
    address: str = ""


class VatProvider(ABC):
    name: ClassVar[str] = ""

    @abstractmethod
    def check(self, country_code: str, number: str) -> Result:
        """Look up `number` (digits/letters only, without the country prefix) of
        `country_code` (ISO 3166-1 alpha-2; Greece is GR)."""
