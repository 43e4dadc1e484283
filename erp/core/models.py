"""The ERP's settings: one row (pk 1), made on first use."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class ErpSettings(models.Model):
    """Whether the ERP is on and the licence it runs under.

    `license_key` names a licence of this service's own licensing app (the store's licence);
    empty means the ERP_LICENSE_KEY setting's. Activation checks the licence; every ERP route
    checks it again (erp.core.gate), so a revoked or expired licence closes the ERP at once.
    """

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    active = models.BooleanField(default=False)
    license_key = models.CharField(max_length=64, blank=True, default="")
    activated_at = models.DateTimeField(null=True, blank=True)
    activated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    deactivated_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "ERP settings"
        verbose_name_plural = "ERP settings"

    def __str__(self) -> str:
        return "ERP settings"
