from django.contrib import admin

from theme.mcp.models import McpDailyUsage


@admin.register(McpDailyUsage)
class McpDailyUsageAdmin(admin.ModelAdmin):
    """Each account's AI tool calls per UTC day: read-only (the endpoint counts them)."""

    list_display = ("day", "user", "calls")
    list_filter = ("day",)
    search_fields = ("user__email",)
    list_select_related = ("user",)
    readonly_fields = ("user", "day", "calls")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
