"""The rules of the AI tool endpoint: who may call an ability (capability and the store's
licence) and how often (per account per minute and per UTC day).

- The per-minute limit is counted in the cache (best-effort, as every rate limit of the
  service: with the cache unreachable it is not enforced and a warning is logged).
- The per-day limit is counted in the database (McpDailyUsage), the truth: one conditional
  UPDATE per call (`calls < limit`), so concurrent calls cannot slip past it and a cache
  outage does not reset it.
- The store's licence is the one the ERP gate reads (erp.core.gate: the key given to
  /erp/activate or ERP_LICENSE_KEY), of the Business tier, active and unexpired; the endpoint
  does not need the ERP to be turned on.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from common.cache import CacheUnavailable
from erp.core import gate
from erp.core.models import ErpSettings
from store.common.capabilities import has_capability
from theme.mcp.models import McpDailyUsage

logger = logging.getLogger(__name__)

MINUTE = 60


@dataclass(frozen=True)
class Refusal:
    """Why a call is refused: a JSON-RPC error (code, message, data)."""

    code: int
    message: str
    data: dict


# JSON-RPC server-error codes (-32000 to -32099 are the implementation's own).
FORBIDDEN = -32010
LICENSE_REQUIRED = -32011
RATE_LIMITED = -32029


def licence_verdict() -> gate.Verdict:
    """The store's licence as the ERP gate judges it (cached there, forgotten on every licence
    change); when the ERP is simply off, the configured key is judged directly."""
    verdict = gate.current()
    if verdict.code == gate.NOT_ACTIVE:
        verdict = gate.license_verdict(
            gate.configured_key(ErpSettings.objects.filter(pk=1).first())
        )
    return verdict


def check_access(user, capability: str) -> Refusal | None:
    """The ability's capability (manage_options holds all), then the store's licence."""
    if not has_capability(user, capability):
        return Refusal(
            FORBIDDEN,
            f"This ability needs the {capability} capability.",
            {"status": 403, "code": "insufficient_capability", "capability": capability},
        )
    verdict = licence_verdict()
    if not verdict.open:
        return Refusal(
            LICENSE_REQUIRED,
            "The AI tool endpoint needs the store's active Business-tier licence: "
            + verdict.message,
            {"status": 403, "code": "mcp_license_required", "reason": verdict.reason},
        )
    return None


def _per_minute(user) -> Refusal | None:
    limit = settings.THEME_MCP_CALLS_PER_MINUTE
    if not limit:
        return None
    window = int(time.time() // MINUTE)
    key = f"theme-mcp:minute:{user.pk}:{window}"
    try:
        cache.add(key, 0, MINUTE + 5)
        count = cache.incr(key)
    except CacheUnavailable:
        logger.warning(
            "MCP per-minute limit not enforced for %s: the cache is unreachable", user.pk
        )
        return None
    except ValueError:  # the key expired between add and incr
        cache.set(key, 1, MINUTE + 5)
        count = 1
    if count <= limit:
        return None
    retry = max(1, math.ceil((window + 1) * MINUTE - time.time()))
    return Refusal(
        RATE_LIMITED,
        f"Too many tool calls: at most {limit} per minute. Try again in {retry} s.",
        {
            "status": 429,
            "code": "rate_limited",
            "limit": limit,
            "window": "minute",
            "retry_after": retry,
        },
    )


def _per_day(user) -> Refusal | None:
    limit = settings.THEME_MCP_CALLS_PER_DAY
    if not limit:
        return None
    today = timezone.now().date()
    counted = McpDailyUsage.objects.filter(user=user, day=today, calls__lt=limit).update(
        calls=F("calls") + 1
    )
    if counted:
        return None
    if not McpDailyUsage.objects.filter(user=user, day=today).exists():
        try:
            with transaction.atomic():
                McpDailyUsage.objects.create(user=user, day=today, calls=1)
            return None
        except IntegrityError:  # another call made today's row first: count on it
            return _per_day(user)
    now = timezone.now()
    midnight = timezone.datetime.combine(
        today + timezone.timedelta(days=1), timezone.datetime.min.time(), tzinfo=now.tzinfo
    )
    retry = max(1, math.ceil((midnight - now).total_seconds()))
    return Refusal(
        RATE_LIMITED,
        f"Too many tool calls: at most {limit} per day. Try again in {retry} s.",
        {
            "status": 429,
            "code": "rate_limited",
            "limit": limit,
            "window": "day",
            "retry_after": retry,
        },
    )


def count_call(user) -> Refusal | None:
    """Count one tool call of `user`: a refusal when it is over a limit (the per-minute one
    first, so a burst does not spend the day's quota)."""
    return _per_minute(user) or _per_day(user)
