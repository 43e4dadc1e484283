"""When a failed attempt is tried again: Svix's schedule with jitter, no sooner than a
minute after a timeout or a 429, and later when the receiver's Retry-After asks for it.
"""

from __future__ import annotations

import datetime as dt
import secrets

from webhooks import sender
from webhooks.services._shared import Outcome

# Svix's schedule: the waits before attempts 2..8 (attempt 1 is immediate).
RETRY_SCHEDULE = (
    dt.timedelta(seconds=5),
    dt.timedelta(minutes=5),
    dt.timedelta(minutes=30),
    dt.timedelta(hours=2),
    dt.timedelta(hours=5),
    dt.timedelta(hours=10),
    dt.timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE) + 1
JITTER = 0.2
MIN_WAIT_AFTER_TIMEOUT_OR_429 = dt.timedelta(seconds=60)
RETRY_AFTER_MAX = dt.timedelta(hours=24)

_random = secrets.SystemRandom()


def jitter_factor() -> float:
    return _random.uniform(1 - JITTER, 1 + JITTER)


def retry_wait(*, attempt: int, result: sender.Result) -> dt.timedelta | None:
    """How long after failed attempt `attempt` the next one is due; None when none is left."""
    if attempt >= MAX_ATTEMPTS:
        return None
    wait = RETRY_SCHEDULE[attempt - 1] * jitter_factor()
    if result.outcome == Outcome.TIMEOUT or result.status_code == 429:
        wait = max(wait, MIN_WAIT_AFTER_TIMEOUT_OR_429)
    if result.retry_after is not None:  # the receiver's wish, within bounds: later, never sooner
        asked = min(dt.timedelta(seconds=result.retry_after), RETRY_AFTER_MAX)
        wait = max(wait, asked)
    return wait
