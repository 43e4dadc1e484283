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
