"""Accounting admin: accounts and fiscal years written through the services (the forms check
by the same rules); years closed by an action; journal entries viewed with their lines,
posted, reversed and (drafts) deleted by actions that call the services; the automatic
postings listed with their errors, failed ones posted again by an action."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from erp.accounting import services
from erp.accounting.models import Account, AutoPosting, FiscalYear, JournalEntry, JournalLine


class AccountForm(ServiceForm):
    ids = {"parent": "parent_id"}

    class Meta:
        model = Account
        fields = ["code", "name", "type", "parent", "role", "description", "is_active"]

    def check(self, fields: dict) -> None:
        services.account_check(fields=fields, account_id=self.instance.pk)


@admin.register(Account)
class AccountAdmin(ServiceAdmin):
    form = AccountForm
    list_display = ["code", "name", "type", "parent", "role", "is_active"]
    list_filter = ["type", "is_active", "role"]
    list_select_related = ["parent"]
    search_fields = ["code", "name"]
    raw_id_fields = ["parent"]
    readonly_fields = ["created_at", "updated_at"]

    def create(self, request, fields):
        return services.account_create(fields=fields)

    def update(self, request, obj, fields):
        return services.account_update(account_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.account_delete(account_id=obj.pk)


class FiscalYearForm(ServiceForm):
    class Meta:
        model = FiscalYear
        fields = ["name", "start_date", "end_date"]

    def check(self, fields: dict) -> None:
        services.fiscal_year_check(fields=fields, year_id=self.instance.pk)


@admin.register(FiscalYear)
class FiscalYearAdmin(ServiceAdmin):
    form = FiscalYearForm
    list_display = ["name", "start_date", "end_date", "status", "next_number", "closed_at"]
    list_filter = ["status"]
    readonly_fields = ["status", "next_number", "closed_at", "created_at", "updated_at"]
    actions = ["close"]

    def create(self, request, fields):
        return services.fiscal_year_create(fields=fields)

    def update(self, request, obj, fields):
        return services.fiscal_year_update(year_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.fiscal_year_delete(year_id=obj.pk)

    @admin.action(description="Close (closing entry to retained earnings)")
    def close(self, request, queryset):
        ids = queryset.order_by("start_date").values_list("pk", flat=True)
        count = for_each(
            self,
            request,
            ids,
            lambda pk: services.fiscal_year_close(year_id=pk, user=request.user),
            label="Fiscal year",
        )
        self.message_user(request, f"{count} fiscal year(s) closed.")


class LineInline(admin.TabularInline):
    model = JournalLine
    extra = 0
    can_delete = False
    fields = [
        "account",
        "debit",
        "credit",
        "description",
        "partner_type",
        "partner_name",
        "due_date",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(JournalEntry)
class JournalEntryAdmin(ReadOnlyAdmin):
    """Entries are written by the API (drafts with lines) and by business events; here they
    are viewed, posted, reversed, and drafts deleted."""

    list_display = ["__str__", "date", "status", "kind", "reference", "memo", "fiscal_year"]
    list_filter = ["status", "kind", "source_type", "fiscal_year"]
    list_select_related = ["fiscal_year"]
    search_fields = ["full_number", "reference", "memo"]
    date_hierarchy = "date"
    inlines = [LineInline]
    actions = ["post", "reverse", "delete_drafts"]

    def _each(self, request, queryset, call, done: str) -> None:
        ids = queryset.order_by("date", "pk").values_list("pk", flat=True)
        count = for_each(self, request, ids, call, label="Journal entry")
        self.message_user(request, f"{count} journal entr(ies) {done}.")

    @admin.action(description="Post")
    def post(self, request, queryset):
        self._each(request, queryset, lambda pk: services.journal_entry_post(entry_id=pk), "posted")

    @admin.action(description="Reverse (dated today)")
    def reverse(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.journal_entry_reverse(entry_id=pk, user=request.user),
            "reversed",
        )

    @admin.action(description="Delete drafts")
    def delete_drafts(self, request, queryset):
        self._each(
            request, queryset, lambda pk: services.journal_entry_delete(entry_id=pk), "deleted"
        )


@admin.register(AutoPosting)
class AutoPostingAdmin(ReadOnlyAdmin):
    list_display = ["source_type", "source_id", "kind", "status", "entry", "attempts", "error"]
    list_filter = ["status", "source_type", "kind"]
    list_select_related = ["entry"]
    search_fields = ["source_id", "error"]
    actions = ["retry"]

    @admin.action(description="Post again (failed ones)")
    def retry(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = for_each(
            self, request, ids, lambda pk: services.event_retry(posting_id=pk), label="Posting"
        )
        failed = AutoPosting.objects.filter(pk__in=list(ids), status="failed").count()
        self.message_user(request, f"{count} posting(s) tried; {failed} still failed.")
