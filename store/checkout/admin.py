"""Admin for checkouts: what shoppers are checking out, for support. Checkouts are written
by the shoppers through the rules; staff may end a hold or cancel an unpaid order early
(through the same services as the beat)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from common.admin import ActionsInHistory
from store.checkout.models import Checkout
from store.checkout.services import expiry as services


@admin.register(Checkout)
class CheckoutAdmin(ActionsInHistory, admin.ModelAdmin):
    list_display = [
        "id",
        "status",
        "email",
        "owner",
        "payment_method",
        "order_link",
        "expires_at",
        "payment_due_at",
        "created_at",
    ]
    list_filter = ["status", "payment_method"]
    search_fields = [
        "email",
        "user__email",
        "order__order_number",
        "cart__token",
        "=client_address",
    ]
    list_select_related = ["user", "order"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "status",
        "cart",
        "user",
        "email",
        "billing_address",
        "shipping_address",
        "payment_method",
        "customer_note",
        "client_address",
        "expires_at",
        "hold_cart_id",
        "hold_revision",
        "order_link",
        "payment_due_at",
        "payment_attempts",
        "payment_error",
        "created_at",
        "updated_at",
        "completed_at",
    ]
    fields = readonly_fields
    actions = ["end_hold", "cancel_unpaid"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # a checkout may hold stock and coupon uses: end it through the actions

    @admin.display(description="Owner", ordering="user__email")
    def owner(self, obj):
        return obj.user.email if obj.user_id else "guest"

    @admin.display(description="Order", ordering="order__id")
    def order_link(self, obj):
        if obj.order_id is None:
            return "-"
        url = reverse("admin:store_orders_order_change", args=[obj.order_id])
        return format_html('<a href="{}">{}</a>', url, obj.order.order_number)

    @admin.action(description="Give back the held stock and coupon uses now")
    def end_hold(self, request, queryset):
        done = sum(
            services.checkout_hold_expire(checkout_id=pk, force=True)
            for pk in queryset.values_list("pk", flat=True)
        )
        self.message_user(request, f"{done} hold(s) given back.", messages.SUCCESS)

    @admin.action(description="Cancel the unpaid order now")
    def cancel_unpaid(self, request, queryset):
        done = sum(
            services.checkout_cancel_unpaid(checkout_id=pk, force=True)
            for pk in queryset.values_list("pk", flat=True)
        )
        self.message_user(request, f"{done} unpaid order(s) cancelled.", messages.SUCCESS)
