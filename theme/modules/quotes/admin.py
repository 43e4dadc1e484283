"""Quote requests in the admin: read, their status changed by actions (the services)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, for_each
from theme.modules.quotes import services
from theme.modules.quotes.models import Quote, QuoteItem, QuoteStatus


class QuoteItemInline(admin.TabularInline):
    model = QuoteItem
    fields = ["product", "quantity"]
    readonly_fields = ["product", "quantity"]
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


def _status_action(status: str, label: str):
    def action(modeladmin, request, queryset):
        ids = list(queryset.values_list("pk", flat=True))
        for_each(
            modeladmin,
            request,
            ids,
            lambda pk: services.quote_status_set(quote_id=pk, status=status),
            label="Quote",
        )

    action.__name__ = f"mark_{status}"
    action.short_description = f"Mark as {label}"  # type: ignore[attr-defined]
    return action


@admin.register(Quote)
class QuoteAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "email", "company", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "email", "company"]
    inlines = [QuoteItemInline]
    actions = [
        _status_action(QuoteStatus.ANSWERED, "answered"),
        _status_action(QuoteStatus.CLOSED, "closed"),
    ]
