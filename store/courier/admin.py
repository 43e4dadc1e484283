"""Admin: the vouchers, read-only but for the cancel action (through the services), and the
couriers' settings (credentials never shown: set them with PATCH /courier/settings)."""

from __future__ import annotations

from django.contrib import admin, messages

from common.admin import ReadOnlyAdmin, refusal_text
from common.errors import ServiceError
from store.courier import services
from store.courier.models import CourierAccount, Voucher


@admin.register(Voucher)
class VoucherAdmin(ReadOnlyAdmin):
    list_display = [
        "number",
        "provider",
        "status",
        "order",
        "shipment",
        "pickup_date",
        "parcels",
        "weight",
        "cod_amount",
        "created_at",
    ]
    list_filter = ["provider", "status", "pickup_date"]
    search_fields = ["number", "reference", "order__order_number"]
    list_select_related = ["order", "shipment"]
    date_hierarchy = "created_at"
    fields = [
        *("provider", "number", "status", "order", "shipment", "recipient", "sender"),
        *("weight", "parcels", "cod_amount", "currency", "reference", "note", "pickup_date"),
        *("events", "tracked_at", "delivered_at", "cancelled_at", "created_at"),
    ]
    readonly_fields = fields
    actions = ["cancel", "track"]

    def has_cancel_permission(self, request) -> bool:
        return request.user.has_perm("store_courier.change_voucher")

    def _each(self, request, queryset, call, done: str) -> None:
        count = 0
        for voucher in queryset:
            try:
                call(voucher)
            except ServiceError as exc:
                self.message_user(request, f"{voucher}: {refusal_text(exc)}", messages.ERROR)
            else:
                count += 1
        self.message_user(request, f"{count} voucher(s) {done}.")

    @admin.action(description="Cancel at the courier", permissions=["cancel"])
    def cancel(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda v: services.voucher_cancel(voucher_id=v.pk, actor=request.user, source="admin"),
            "cancelled",
        )

    @admin.action(description="Track now", permissions=["cancel"])
    def track(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda v: services.voucher_track(voucher_id=v.pk, actor=request.user, source="admin"),
            "tracked",
        )


@admin.register(CourierAccount)
class CourierAccountAdmin(ReadOnlyAdmin):
    list_display = ["provider", "enabled", "default_weight", "updated_at"]
    fields = ["provider", "enabled", "sender", "default_weight", "updated_at"]
    readonly_fields = fields
