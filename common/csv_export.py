"""CSV downloads, streamed row by row and safe to open in a spreadsheet.

A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is read as a formula by
spreadsheet programs; such cells are prefixed with a single quote (OWASP, "CSV Injection"), and
the csv module quotes any cell holding a separator, a quote or a line break.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal

from django.http import StreamingHttpResponse

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class Column:
    header: str
    value: Callable[[object], object]


def column(header: str, path: str | None = None) -> Column:
    """A column read from an attribute path (`owner.email`); a missing link gives ""."""
    parts = (path or header).split(".")

    def read(obj):
        for part in parts:
            if obj is None:
                return None
            obj = getattr(obj, part)
        return obj() if callable(obj) else obj

    return Column(header, read)


def cell(value) -> str:
    """One value as text: UTC ISO 8601 times, plain decimals, yes/no, and no formulas. A
    number is written as it is (a refund's -10.00 stays a number a spreadsheet sums)."""
    if isinstance(value, (Decimal, int)) and not isinstance(value, bool):
        return format(value, "f") if isinstance(value, Decimal) else str(value)
    if value is None:
        text = ""
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    elif isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
        text = value.isoformat().replace("+00:00", "Z")
    else:
        text = str(value)
    if text.startswith(FORMULA_PREFIXES):
        return "'" + text
    return text


class _Echo:
    """A file-like object whose write() hands the line back, for csv.writer."""

    def write(self, value: str) -> str:
        return value


def csv_lines(columns: Sequence[Column], rows: Iterable) -> Iterator[str]:
    writer = csv.writer(_Echo())
    yield writer.writerow([col.header for col in columns])
    for row in rows:
        yield writer.writerow([cell(col.value(row)) for col in columns])


def csv_response(columns: Sequence[Column], rows: Iterable, *, filename: str):
    """A streamed download: the rows are read and written one chunk at a time."""
    response = StreamingHttpResponse(csv_lines(columns, rows), content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
