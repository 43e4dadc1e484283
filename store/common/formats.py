"""How the store writes values in its answers (output; input is store.common.params).

- `iso`: a time in UTC, ISO 8601 as DRF writes it (`2025-01-31T12:00:00Z`, microseconds when
  there are any), without building a serializer field per value (a page of 100 orders has
  hundreds of times);
- `decimal_str`: a decimal as a plain string (`"1.250"`, never an exponent); money is
  `store.common.money.money_str`, always two places.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal


def iso(value: datetime | None) -> str | None:
    """UTC ISO 8601 (`...Z`); None stays None."""
    if value is None:
        return None
    text = value.astimezone(UTC).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def decimal_str(value: Decimal | None) -> str | None:
    return None if value is None else format(value, "f")
