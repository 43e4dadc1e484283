"""Admin: marketplace orders and events, read-only but for their actions (through the
services): import a failed order again, process an event again. The settings are shown without
their secrets (set them with PUT /marketplace/settings)."""

from __future__ import annotations

from django.contrib import admin, messages

from common.admin import ReadOnlyAdmin, refusal_text
from common.errors import ServiceError
from store.marketplace import services
from store.marketplace.models import (
    EventStatus,
    MarketplaceAccount,
    MarketplaceCall,
    MarketplaceEvent,
    MarketplaceOrder,
)


@admin.register(MarketplaceOrder)
class MarketplaceOrderAdmin(ReadOnlyAdmin):
    list_display = [
        "code",
        "marketplace",
        "state",
        "import_status",
        "failure_code",
        "order",
        "total",
        "acknowledged_at",
        "shipped_at",
        "created_at",
    ]
    list_filter = ["marketplace", "import_status", "state", "created_at"]
    search_fields = ["code", "order__order_number", "failure_message"]
    list_select_related = ["order"]
    date_hierarchy = "created_at"
    fields = [
        *("marketplace", "code", "state", "import_status", "failure_code", "failure_message"),
        *("import_attempts", "order", "currency", "total", "data", "acknowledged_at"),
        *("rejected_at", "reject_reason", "shipped_at", "tracking_number", "carrier"),
        *("created_at", "updated_at"),
    ]
    readonly_fields = fields
    actions = ["retry_import"]

    def has_retry_import_permission(self, request) -> bool:
        return request.user.has_perm("store_marketplace.change_marketplaceorder")

    @admin.action(description="Import again (failed imports)", permissions=["retry_import"])
    def retry_import(self, request, queryset):
        imported = 0
        for row in queryset:
            try:
                row = services.order_import_retry(marketplace_order_id=row.pk, actor=request.user)
            except ServiceError as exc:
                self.message_user(request, f"{row}: {refusal_text(exc)}", messages.ERROR)
                continue
            if row.import_status == "imported":
                imported += 1
            else:
                self.message_user(
                    request, f"{row}: failed again: {row.failure_message}", messages.WARNING
                )
        self.message_user(request, f"{imported} order(s) imported.")


@admin.register(MarketplaceEvent)
class MarketplaceEventAdmin(ReadOnlyAdmin):
    list_display = [
        "event_id",
        "marketplace",
        "type",
        "order_code",
        "status",
        "outcome",
        "attempts",
        "received_at",
        "processed_at",
    ]
    list_filter = ["marketplace", "status", "outcome", "type"]
    search_fields = ["event_id", "order_code"]
    date_hierarchy = "received_at"
    fields = [
        *("marketplace", "event_id", "type", "order_code", "status", "outcome", "error"),
        *("attempts", "payload", "received_at", "processed_at"),
    ]
    readonly_fields = fields
    actions = ["process"]

    def has_process_permission(self, request) -> bool:
        return request.user.has_perm("store_marketplace.change_marketplaceevent")

    @admin.action(description="Process now (pending or failed)", permissions=["process"])
    def process(self, request, queryset):
        done = 0
        for event in queryset.exclude(status=EventStatus.PROCESSED):
            try:
                services.event_process(event_pk=event.pk)
            except Exception as exc:  # noqa: BLE001 - recorded on the event, shown here
                self.message_user(request, f"{event}: {exc}", messages.ERROR)
            else:
                done += 1
        self.message_user(request, f"{done} event(s) processed.")


@admin.register(MarketplaceCall)
class MarketplaceCallAdmin(ReadOnlyAdmin):
    list_display = ["marketplace", "action", "order_code", "ok", "sandbox", "created_at"]
    list_filter = ["marketplace", "action", "sandbox"]
    search_fields = ["order_code"]
    fields = [
        *("marketplace", "action", "order_code", "request", "ok", "response", "sandbox"),
        "created_at",
    ]
    readonly_fields = fields


@admin.register(MarketplaceAccount)
class MarketplaceAccountAdmin(ReadOnlyAdmin):
    list_display = ["marketplace", "enabled", "auto_acknowledge", "order_status", "updated_at"]
    fields = [
        *("marketplace", "enabled", "auto_acknowledge", "order_status", "shipping_method"),
        *("shipping_method_title", "updated_at"),
    ]
    readonly_fields = fields
