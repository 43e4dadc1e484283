"""The Business-tier licence gate of every ERP route (spec: "ERP groups additionally need an
active Business-tier license; an unlicensed store gets 403").

The store's licence is a licence of this service's own licensing app: ErpSettings.license_key
(set by POST /erp/activate) or, before any activation, the ERP_LICENSE_KEY setting. The gate is
open while the ERP is on and that licence exists, is active, has not expired and is of the
Business tier. The verdict is read through the licensing app's selectors and kept in the cache
for ERP_LICENSE_CACHE_SECONDS (never past the licence's expiry); activation, deactivation, any
save of a licence and every licence event (common.events) forget it, so a revoked licence
closes the ERP at once. The cache is best-effort: while it is unreachable every check reads the
database.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from common.errors import NotFound
from common.events import events_published
from erp.core.models import ErpSettings
from licensing import selectors as licensing_selectors
from licensing.models import License, LicenseStatus, Tier
from store.common.errors import rule_broken

CACHE_KEY = "erp:gate:v1"

NOT_ACTIVE = "erp_not_active"
LICENSE_REQUIRED = "erp_license_required"


@dataclass(frozen=True)
class Verdict:
    open: bool
    code: str  # "ok", NOT_ACTIVE or LICENSE_REQUIRED
    reason: str  # ok, not_active, no_license, license_not_found, revoked, expired, not_business
    message: str
    license_key: str = ""
    tier: str | None = None
    expires_at: str | None = None


def _closed(code: str, reason: str, message: str, **extra) -> Verdict:
    return Verdict(open=False, code=code, reason=reason, message=message, **extra)


def mask(key: str) -> str:
    """A licence key as the ERP shows it: its last group only."""
    return f"…{key[-4:]}" if key else ""


def configured_key(row: ErpSettings | None) -> str:
    return (row.license_key if row is not None else "") or settings.ERP_LICENSE_KEY


def is_on(row: ErpSettings | None) -> bool:
    """On once activated; before any activation, when ERP_LICENSE_KEY names a licence."""
    return row.active if row is not None else bool(settings.ERP_LICENSE_KEY)


def license_verdict(key: str, *, now=None) -> Verdict:
    """Whether the licence of `key` lets the store run the ERP (the ERP being on aside)."""
    if not key:
        return _closed(
            LICENSE_REQUIRED,
            "no_license",
            "The ERP needs the store's Business-tier licence: POST /erp/activate with its key.",
        )
    try:
        license = licensing_selectors.public_license(key)
    except NotFound:
        return _closed(
            LICENSE_REQUIRED, "license_not_found", "The store's licence key names no licence."
        )
    status = license.effective_status(now or timezone.now())
    extra = {
        "license_key": mask(license.license_key),
        "tier": license.tier,
        "expires_at": license.expires_at.isoformat() if license.expires_at else None,
    }
    if status == LicenseStatus.REVOKED:
        return _closed(LICENSE_REQUIRED, "revoked", "The store's licence was revoked.", **extra)
    if status == LicenseStatus.EXPIRED:
        return _closed(LICENSE_REQUIRED, "expired", "The store's licence has expired.", **extra)
    if license.tier != Tier.BUSINESS:
        return _closed(
            LICENSE_REQUIRED,
            "not_business",
            f"The ERP needs a Business-tier licence; the store's is {license.tier}.",
            **extra,
        )
    return Verdict(open=True, code="ok", reason="ok", message="The ERP is licensed.", **extra)


def compute(*, now=None) -> Verdict:
    row = ErpSettings.objects.filter(pk=1).first()
    if not is_on(row):
        return _closed(
            NOT_ACTIVE, "not_active", "The ERP is not active: POST /erp/activate to turn it on."
        )
    return license_verdict(configured_key(row), now=now)


def current() -> Verdict:
    """The gate's verdict now (cached; see the module's docstring)."""
    cached = cache.get(CACHE_KEY)
    if isinstance(cached, dict):
        try:
            verdict = Verdict(**cached)
        except TypeError:  # a verdict of another version of this module
            verdict = None
        # Past the licence's expiry the cached verdict is stale whatever the cache's own clock
        # says (its TTL is counted by Redis, this by the service).
        if verdict is not None and not (
            verdict.expires_at
            and timezone.datetime.fromisoformat(verdict.expires_at) <= timezone.now()
        ):
            return verdict
    verdict = compute()
    timeout = settings.ERP_LICENSE_CACHE_SECONDS
    if verdict.expires_at:
        left = (
            timezone.datetime.fromisoformat(verdict.expires_at) - timezone.now()
        ).total_seconds()
        timeout = max(1, min(timeout, int(left)))
    cache.set(CACHE_KEY, asdict(verdict), timeout)
    return verdict


def forget() -> None:
    """Drop the cached verdict now and again after the commit (a reader that saw the old rows
    before the commit cannot leave their verdict behind)."""
    cache.delete(CACHE_KEY)
    transaction.on_commit(lambda: cache.delete(CACHE_KEY), robust=True)


def ensure_open() -> None:
    """403 unless the ERP is on and licensed (the store error shape; code erp_not_active or
    erp_license_required)."""
    verdict = current()
    if not verdict.open:
        raise rule_broken(verdict.message, code=verdict.code, status=403)


def _license_saved(sender, **kwargs) -> None:
    forget()


def _events_published(sender, *, events, **kwargs) -> None:
    # Licensing's bulk writes (revoke, renew, expire) save no model; they publish events.
    if any(event.event.startswith("license.") for event in events):
        forget()


def connect() -> None:
    for signal in (post_save, post_delete):
        signal.connect(_license_saved, sender=License, dispatch_uid=f"erp_gate_{signal}")
    events_published.connect(_events_published, dispatch_uid="erp_gate_license_events")
