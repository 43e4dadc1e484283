"""Debug admin: the entries read-only (they are written by the log handler, the js-log sink and
/debug/test; cleared through /debug/clear or the retention purge), the settings changed through
the service (validated the same way as PUT /debug/settings)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm
from debugtools import services
from debugtools.models import DebugSettings, LogEntry
from store.common.errors import rule_broken


@admin.register(LogEntry)
class LogEntryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "level", "logger", "short_message", "request_id", "source"]
    list_filter = ["level", "source"]
    search_fields = ["message", "logger", "request_id"]
    date_hierarchy = "created_at"
    show_full_result_count = False
    fields = ["created_at", "level", "logger", "message", "request_id", "source", "context"]
    readonly_fields = fields

    @admin.display(description="message")
    def short_message(self, obj):
        return obj.message[:120]


class DebugSettingsForm(ServiceForm):
    class Meta:
        model = DebugSettings
        fields = ["level", "retention_days", "js_log_enabled"]

    def check(self, fields: dict) -> None:
        services.settings_check(values=fields)


@admin.register(DebugSettings)
class DebugSettingsAdmin(ServiceAdmin):
    form = DebugSettingsForm
    list_display = ["__str__", "level", "retention_days", "js_log_enabled", "updated_at"]
    readonly_fields = ["updated_at"]

    def has_add_permission(self, request):
        return super().has_add_permission(request) and not DebugSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def create(self, request, fields):
        return services.settings_update(values=fields)

    def update(self, request, obj, fields):
        return services.settings_update(values=fields)

    def remove(self, request, obj) -> None:
        # Never offered (has_delete_permission is False); a forged call is refused, as the
        # invoicing settings' is: the settings row is the one place the level is kept.
        raise rule_broken("The debug settings are never deleted.", code="not_deletable", status=409)
