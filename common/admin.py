"""Staff views of the background machinery: the outbox (what waits to be published) and the
workers' heartbeats. Read only: rows are written by the services and the beat; the one action
publishes waiting rows now, as the beat's drain does when they are due."""

from django.contrib import admin, messages
from django.utils import timezone

from common import outbox
from common.models import OutboxMessage, WorkerHeartbeat


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class WaitingFilter(admin.SimpleListFilter):
    title = "state"
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [("waiting", "Waiting"), ("sent", "Sent")]

    def queryset(self, request, queryset):
        if self.value() == "waiting":
            return queryset.filter(sent_at__isnull=True)
        if self.value() == "sent":
            return queryset.filter(sent_at__isnull=False)
        return queryset


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnlyAdmin):
    list_display = ["id", "task", "due_at", "sent_at", "attempts", "last_error", "created_at"]
    list_filter = [WaitingFilter, "task"]
    search_fields = ["task", "dedupe_key"]
    exclude = ["payload"]  # encrypted arguments; never shown
    ordering = ["-id"]
    actions = ["publish_now"]

    @admin.action(description="Publish now (waiting rows, due or not)")
    def publish_now(self, request, queryset):
        waiting = queryset.filter(sent_at__isnull=True)
        waiting.filter(due_at__gt=timezone.now()).update(due_at=timezone.now())
        ids = list(waiting.values_list("pk", flat=True))
        sent = outbox.publish(ids)
        level = messages.SUCCESS if sent == len(ids) else messages.WARNING
        self.message_user(
            request, f"Published {sent} of {len(ids)} waiting task(s); the rest wait.", level
        )


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(ReadOnlyAdmin):
    list_display = ["hostname", "seen_at"]
    ordering = ["-seen_at"]
