"""GET /erp/portal-settings."""

from __future__ import annotations

from erp.core.models import ErpPortalSettings


def portal_settings() -> ErpPortalSettings:
    """The portal's settings (the defaults, unsaved, before the first change)."""
    return (
        ErpPortalSettings.objects.select_related("updated_by").filter(pk=1).first()
        or ErpPortalSettings()
    )
