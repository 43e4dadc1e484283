"""Admin for the sandbox provider's charges: read-only, like a provider's dashboard."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin
from store.payments.models import SandboxCharge


@admin.register(SandboxCharge)
class SandboxChargeAdmin(ReadOnlyAdmin):
    list_display = [
        "transaction_id",
        "reference",
        "amount",
        "currency",
        "status",
        "decline_code",
        "brand",
        "last4",
        "amount_refunded",
        "created_at",
    ]
    list_filter = ["status", "decline_code", "brand"]
    search_fields = ["transaction_id", "reference", "idempotency_key"]
    date_hierarchy = "created_at"
    readonly_fields = [field.name for field in SandboxCharge._meta.fields]
