"""What a resumable job is made of (erp.core.services.jobs runs them): phases, each a source of
rows read in id order and what one batch of them does."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.db.models import QuerySet


@dataclass
class BatchResult:
    """What one batch did: counts by name ("imported", "skipped", ...), and errors
    (`{"id", "message"}`) of rows it could not do (they are skipped, the job goes on)."""

    counts: dict[str, int] = field(default_factory=dict)
    errors: list[dict] = field(default_factory=list)

    def add(self, name: str, n: int = 1) -> None:
        if n:
            self.counts[name] = self.counts.get(name, 0) + n

    def error(self, row_id: int, message: str) -> None:
        self.errors.append({"id": row_id, "message": message[:500]})
        self.add("errors")


@dataclass(frozen=True)
class Phase:
    name: str
    #: The phase's rows (`params`: the job's options); read `pk > last_id`, in pk order.
    rows: Callable[[dict], QuerySet]
    #: Do one batch of rows (inside the batch's transaction): idempotent, a row done twice
    #: ends the same.
    process: Callable[[object, list, dict], BatchResult]
