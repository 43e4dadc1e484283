"""Staff views of webhooks and deliveries. Changes go through the services (same rules as the
API): enabling/disabling, redelivery. Webhooks are created by their accounts through the API
(the secret is shown to the account once), so the admin does not add them. Store webhooks
(scope `store`: created by staff at /rest/ec/v1/webhooks) are listed beside the
portal's, filterable by scope, with the same actions."""

from django.contrib import admin, messages

from common.admin import ActionsInHistory
from common.errors import ServiceError
from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Webhook


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Webhook)
class WebhookAdmin(ActionsInHistory, admin.ModelAdmin):
    list_display = [
        "id",
        "url",
        "scope",
        "account",
        "is_active",
        "events",
        "failing_since",
        "created_at",
    ]
    list_filter = ["scope", "is_active", "created_at"]
    list_select_related = ["account"]
    search_fields = ["url", "description", "account__email"]
    raw_id_fields = ["account"]
    readonly_fields = [
        "scope",
        "account",
        "created_by",
        "url",
        "events",
        "description",
        "is_active",
        "disabled_reason",
        "disabled_at",
        "failing_since",
        "created_at",
        "updated_at",
    ]
    exclude = ["secret"]
    actions = ["enable", "disable"]

    def has_add_permission(self, request) -> bool:
        return False

    @admin.action(description="Enable (clears the disabled reason and failure clock)")
    def enable(self, request, queryset):
        for webhook in queryset:
            services.webhook_update(webhook=webhook, is_active=True)
        self.message_user(request, f"{queryset.count()} webhook(s) enabled.", messages.SUCCESS)

    @admin.action(description="Disable (gives up pending deliveries)")
    def disable(self, request, queryset):
        for webhook in queryset:
            services.webhook_update(
                webhook=webhook, is_active=False, disabled_reason="Disabled by staff."
            )
        self.message_user(request, f"{queryset.count()} webhook(s) disabled.", messages.SUCCESS)


class DeliveryAttemptInline(admin.TabularInline):
    model = DeliveryAttempt
    fields = [
        "attempt",
        "created_at",
        "outcome",
        "status_code",
        "success",
        "duration_ms",
        "error",
        "response_body",
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["id"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


def redeliver(modeladmin, request, queryset, *, deliveries):
    sent, refused = 0, []
    for delivery in deliveries:
        try:
            services.delivery_redeliver(delivery=delivery)
            sent += 1
        except ServiceError as exc:
            refused.append(f"{delivery.uuid}: {exc.detail}")
    if sent:
        modeladmin.message_user(request, f"{sent} delivery(ies) queued again.", messages.SUCCESS)
    for line in refused:
        modeladmin.message_user(request, line, messages.ERROR)


@admin.register(Delivery)
class DeliveryAdmin(ActionsInHistory, ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "uuid",
        "event",
        "webhook",
        "status",
        "attempts",
        "next_attempt_at",
        "created_at",
    ]
    list_filter = ["webhook__scope", "status", "event", "created_at"]
    list_select_related = ["webhook"]
    search_fields = ["=uuid", "webhook__url", "webhook__account__email"]
    raw_id_fields = ["webhook"]
    readonly_fields = [
        "webhook",
        "uuid",
        "event",
        "body",
        "status",
        "attempts",
        "auto_retry",
        "next_attempt_at",
        "dispatched_at",
        "locked_until",
        "created_at",
        "last_attempt_at",
        "succeeded_at",
    ]
    exclude = ["claim_token", "claimed_by_task"]
    inlines = [DeliveryAttemptInline]
    actions = ["redeliver"]

    @admin.action(description="Redeliver (same body and delivery id)")
    def redeliver(self, request, queryset):
        redeliver(self, request, queryset, deliveries=queryset)


@admin.register(DeliveryAttempt)
class DeliveryAttemptAdmin(ActionsInHistory, ReadOnlyMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "event",
        "webhook",
        "attempt",
        "outcome",
        "status_code",
        "success",
        "duration_ms",
        "created_at",
    ]
    list_filter = ["success", "outcome", "event", "created_at"]
    list_select_related = ["webhook", "delivery"]
    search_fields = ["=delivery__uuid", "webhook__url", "webhook__account__email"]
    raw_id_fields = ["webhook", "delivery"]
    readonly_fields = [
        "webhook",
        "delivery",
        "attempt",
        "event",
        "status_code",
        "success",
        "outcome",
        "error",
        "response_body",
        "duration_ms",
        "created_at",
    ]
    actions = ["redeliver"]

    @admin.action(description="Redeliver the delivery of these entries")
    def redeliver(self, request, queryset):
        deliveries = {entry.delivery_id: entry.delivery for entry in queryset}
        redeliver(self, request, queryset, deliveries=deliveries.values())
