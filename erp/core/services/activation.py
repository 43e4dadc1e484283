"""Turning the ERP on and off."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from erp.core import gate
from erp.core.models import ErpSettings
from erp.core.services.access import erp_roles_ensure
from licensing.keys import normalize_license_key
from store.common.accounts import logged_in
from store.common.errors import invalid_params, rule_broken


def _row_for_update() -> ErpSettings:
    ErpSettings.objects.get_or_create(pk=1)
    return ErpSettings.objects.select_for_update().get(pk=1)


@transaction.atomic
def erp_activate(*, license_key: str | None = None, user=None) -> ErpSettings:
    """Turn the ERP on under `license_key` (default: the key already configured). The licence
    must exist, be active and of the Business tier: 400 for a key that names no licence, 409
    `erp_license_required` (naming why) for one that cannot run the ERP; nothing changes then.
    The ERP's seeded roles (erp.core.capabilities) are made then."""
    row = _row_for_update()
    key = normalize_license_key(license_key) if license_key else gate.configured_key(row)
    if license_key and not key:
        raise invalid_params({"license_key": ["Not a licence key."]})
    verdict = gate.license_verdict(key)
    if verdict.reason in ("no_license", "license_not_found"):
        raise invalid_params({"license_key": [verdict.message]})
    if not verdict.open:
        raise rule_broken(verdict.message, code=gate.LICENSE_REQUIRED, status=409)
    row.active = True
    row.license_key = key
    row.activated_at = timezone.now()
    row.activated_by = logged_in(user)
    row.deactivated_at = None
    row.save()
    erp_roles_ensure()  # the ERP's seeded roles, the first time
    gate.forget()
    return row


@transaction.atomic
def erp_deactivate(*, user=None) -> ErpSettings:
    """Turn the ERP off (its data stay; every ERP route answers 403 until it is on again)."""
    row = _row_for_update()
    row.active = False
    row.deactivated_at = timezone.now()
    row.save()
    gate.forget()
    return row
