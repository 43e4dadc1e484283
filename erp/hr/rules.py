"""The identity numbers HR records, checked and normalised in one place (python-stdnum): the
employee's services and the labor registry's settings both call these."""

from __future__ import annotations

from stdnum.exceptions import ValidationError as StdnumError
from stdnum.gr import amka, vat


def tax_id_clean(value: str) -> str:
    """A Greek AFM (python-stdnum gr.vat, without the EL prefix); ValueError otherwise."""
    try:
        return vat.validate(value)
    except StdnumError as exc:
        raise ValueError(f"Not a valid Greek AFM ({exc.message.rstrip('.')}).") from None


def amka_clean(value: str) -> str:
    """A Greek social security number (AMKA); ValueError otherwise."""
    try:
        return amka.validate(value)
    except StdnumError as exc:
        raise ValueError(f"Not a valid AMKA ({exc.message.rstrip('.')}).") from None
