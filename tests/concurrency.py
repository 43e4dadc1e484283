"""Run callables at the same moment in threads, each on its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections


def race(*calls: Callable[[], object]) -> list[object]:
    """Start every call together; answer their results (or the exceptions they raised)."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(index: int, call: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = call()
        except Exception as exc:  # noqa: BLE001 - the caller inspects what each call raised
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results
