"""What GET /erp/status answers."""

from __future__ import annotations

from erp.core import gate
from erp.core.models import ErpSettings


def erp_status() -> dict:
    """Whether the ERP is on and licensed now (read fresh, not from the gate's cache)."""
    row = ErpSettings.objects.select_related("activated_by").filter(pk=1).first()
    verdict = gate.compute()
    licence = gate.license_verdict(gate.configured_key(row))
    return {
        "active": gate.is_on(row),
        "licensed": licence.open,
        "available": verdict.open,
        "reason": verdict.reason,
        "message": verdict.message,
        "license": {
            "key": licence.license_key or gate.mask(gate.configured_key(row)),
            "tier": licence.tier,
            "expires_at": licence.expires_at,
            "status": licence.reason,
        },
        "activated_at": row.activated_at.isoformat() if row and row.activated_at else None,
        "activated_by": row.activated_by.email if row and row.activated_by else None,
        "deactivated_at": row.deactivated_at.isoformat() if row and row.deactivated_at else None,
    }
