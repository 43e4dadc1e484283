from __future__ import annotations

from datetime import UTC, datetime


def add_years(moment: datetime, years: int = 1) -> datetime:
    """The same calendar moment `years` later; 29 February becomes 28 February."""
    try:
        return moment.replace(year=moment.year + years)
    except ValueError:  # 29 February into a common year
        return moment.replace(year=moment.year + years, day=28)


def iso(moment: datetime | None) -> str | None:
    """UTC ISO 8601 with a +00:00 offset, as in webhook deliveries."""
    return moment.astimezone(UTC).isoformat() if moment is not None else None


def iso_from_db_text(text: str) -> str:
    """A UTC timestamp as the database writes it as text (PostgreSQL: `2026-06-01
    12:00:00.1234+00`, trailing zeros of the fraction dropped; SQLite: `2026-06-01
    12:00:00.123400`) in the spelling of DRF's DateTimeField ("iso-8601", UTC): `T`, six
    digits of fraction unless it is zero, `Z`."""
    if text.endswith("+00"):
        text = text[:-3]
    elif text.endswith("+00:00"):
        text = text[:-6]
    head, dot, fraction = text.partition(".")
    if dot and fraction.strip("0"):
        head = f"{head}.{fraction:0<6}"
    return head.replace(" ", "T", 1) + "Z"
