from django.contrib import admin

from erp.core import gate
from erp.core.models import ErpSettings


@admin.register(ErpSettings)
class ErpSettingsAdmin(admin.ModelAdmin):
    """Read-only: the ERP is turned on and off through POST /erp/activate and /erp/deactivate
    (erp.core.services), which check the licence."""

    list_display = ("__str__", "active", "masked_key", "activated_at", "deactivated_at")
    readonly_fields = (
        "active",
        "masked_key",
        "activated_at",
        "activated_by",
        "deactivated_at",
        "updated_at",
    )
    exclude = ("license_key",)

    @admin.display(description="Licence key")
    def masked_key(self, row: ErpSettings) -> str:
        return gate.mask(row.license_key)

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
