"""CRM admin: contacts, leads, activities and segments written through the services (the
forms check by the same rules); a lead's stage moves and conversion are actions calling the
services, its history read-only."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from common.admin import ServiceAdmin, ServiceForm, for_each
from erp.crm import services
from erp.crm.models import Activity, Contact, Lead, LeadStageChange, Segment


class ContactForm(ServiceForm):
    ids = {"owner": "owner_id", "customer": "customer_id"}
    website = forms.URLField(max_length=255, required=False, assume_scheme="https")

    class Meta:
        model = Contact
        fields = [*services.CONTACT_FIELDS, "owner", "customer"]

    def check(self, fields: dict) -> None:
        services.contact_check(fields=fields, contact_id=self.instance.pk)


@admin.register(Contact)
class ContactAdmin(ServiceAdmin):
    form = ContactForm
    list_display = ["name", "email", "phone", "company", "country", "owner", "customer"]
    list_filter = ["country"]
    list_select_related = ["owner", "customer"]
    raw_id_fields = ["owner", "customer"]
    search_fields = ["name", "email", "company", "phone"]
    readonly_fields = ["created_at", "updated_at"]
    actions = ["import_customers"]

    def create(self, request, fields):
        return services.contact_create(fields=fields, user=request.user)

    def update(self, request, obj, fields):
        return services.contact_update(contact_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.contact_delete(contact_id=obj.pk)

    @admin.action(description="Import every store customer (the selection is not used)")
    def import_customers(self, request, queryset):
        counts = services.contacts_import_customers()
        self.message_user(
            request,
            "Store customers imported: {created} created, {updated} updated, "
            "{skipped} unchanged.".format(**counts),
        )


class StageChangeInline(admin.TabularInline):
    model = LeadStageChange
    extra = 0
    can_delete = False
    fields = ["from_stage", "to_stage", "note", "changed_by", "changed_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class LeadForm(ServiceForm):
    ids = {"contact": "contact_id", "owner": "owner_id"}

    class Meta:
        model = Lead
        fields = [*services.LEAD_FIELDS, "contact", "owner"]

    def check(self, fields: dict) -> None:
        services.lead_check(fields=fields, lead_id=self.instance.pk)


@admin.register(Lead)
class LeadAdmin(ServiceAdmin):
    form = LeadForm
    list_display = ["title", "contact", "stage", "value", "currency", "probability", "owner"]
    list_filter = ["stage", "source", "currency"]
    list_select_related = ["contact", "owner"]
    raw_id_fields = ["contact", "owner"]
    search_fields = ["title", "contact_name", "company", "email", "contact__name"]
    readonly_fields = ["stage", "lost_reason", "closed_at", "converted_at", "created_at"]
    inlines = [StageChangeInline]
    actions = ["qualify", "win", "convert"]

    def create(self, request, fields):
        return services.lead_create(fields=fields, user=request.user)

    def update(self, request, obj, fields):
        return services.lead_update(lead_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.lead_delete(lead_id=obj.pk)

    def _each(self, request, queryset, call, done: str) -> None:
        ids = queryset.values_list("pk", flat=True)
        count = for_each(self, request, ids, call, label="Lead")
        self.message_user(request, f"{count} lead(s) {done}.")

    @admin.action(description="Move to qualified")
    def qualify(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.lead_move_stage(lead_id=pk, stage="qualified", user=request.user),
            "qualified",
        )

    @admin.action(description="Mark won")
    def win(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.lead_move_stage(lead_id=pk, stage="won", user=request.user),
            "won",
        )

    @admin.action(description="Convert to a contact")
    def convert(self, request, queryset):
        self._each(
            request,
            queryset,
            lambda pk: services.lead_convert(lead_id=pk, user=request.user),
            "converted",
        )


class ActivityForm(ServiceForm):
    ids = {"contact": "contact_id", "lead": "lead_id", "assigned_to": "assigned_to_id"}

    class Meta:
        model = Activity
        fields = [*services.ACTIVITY_FIELDS, "done", "contact", "lead", "assigned_to"]

    def check(self, fields: dict) -> None:
        services.activity_check(fields=fields, activity_id=self.instance.pk)


@admin.register(Activity)
class ActivityAdmin(ServiceAdmin):
    form = ActivityForm
    list_display = ["subject", "kind", "due_at", "done", "contact", "lead", "assigned_to"]
    list_filter = ["kind", "done"]
    list_select_related = ["contact", "lead", "assigned_to"]
    raw_id_fields = ["contact", "lead", "assigned_to"]
    search_fields = ["subject", "contact__name", "lead__title"]
    readonly_fields = ["done_at", "created_at"]
    date_hierarchy = "due_at"
    actions = ["mark_done"]

    def create(self, request, fields):
        return services.activity_create(fields=fields, user=request.user)

    def update(self, request, obj, fields):
        return services.activity_update(activity_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.activity_delete(activity_id=obj.pk)

    @admin.action(description="Mark done")
    def mark_done(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = for_each(
            self,
            request,
            ids,
            lambda pk: services.activity_update(activity_id=pk, fields={"done": True}),
            label="Activity",
        )
        self.message_user(request, f"{count} activit(ies) marked done.")


class SegmentForm(ServiceForm):
    class Meta:
        model = Segment
        fields = ["name", "description", "target", "rules"]

    def check(self, fields: dict) -> None:
        services.segment_check(fields=fields, segment_id=self.instance.pk)


@admin.register(Segment)
class SegmentAdmin(ServiceAdmin):
    form = SegmentForm
    list_display = ["name", "target", "description"]
    list_filter = ["target"]
    search_fields = ["name", "description"]
    readonly_fields = ["created_at", "updated_at"]

    def create(self, request, fields):
        return services.segment_create(fields=fields)

    def update(self, request, obj, fields):
        return services.segment_update(segment_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.segment_delete(segment_id=obj.pk)
