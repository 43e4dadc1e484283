"""Admin: the e-mail templates (edited through the same checks as the API, with a preview)
and the read-only log of sent e-mails."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.utils.html import format_html, format_html_join

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm
from common.errors import ServiceError
from store.common.errors import rule_broken
from store.emails import selectors, services, types
from store.emails.models import EmailTemplate, SentEmail


class EmailTemplateForm(ServiceForm):
    class Meta:
        model = EmailTemplate
        fields = ["subject", "body_html", "body_text"]
        widgets = {
            "subject": forms.TextInput(attrs={"size": 100}),
            "body_html": forms.Textarea(attrs={"rows": 20, "cols": 100}),
            "body_text": forms.Textarea(attrs={"rows": 20, "cols": 100}),
        }

    def check(self, fields: dict) -> None:
        services.template_check(
            email_type=selectors.email_type_get(self.instance.type), fields=fields
        )


@admin.register(EmailTemplate)
class EmailTemplateAdmin(ServiceAdmin):
    form = EmailTemplateForm
    list_display = ["type", "title", "recipient", "customised", "enabled", "updated_at"]
    readonly_fields = ["type", "description", "variables", "defaults", "preview", "updated_at"]
    fieldsets = [
        (None, {"fields": ["type", "description", "updated_at"]}),
        (
            "Template (empty: the default)",
            {"fields": ["subject", "body_html", "body_text"]},
        ),
        ("Variables", {"fields": ["variables"]}),
        ("Preview (saved template, sample data)", {"fields": ["preview"]}),
        ("Defaults", {"fields": ["defaults"], "classes": ["collapse"]}),
    ]
    actions = ["reset"]

    def has_add_permission(self, request):
        return False  # one row per type, made after migrate

    def has_delete_permission(self, request, obj=None):
        return False  # reset instead

    @admin.display(description="title")
    def title(self, obj):
        email_type = types.get(obj.type)
        return email_type.title if email_type else obj.type

    @admin.display(description="recipient")
    def recipient(self, obj):
        email_type = types.get(obj.type)
        return email_type.recipient if email_type else ""

    @admin.display(boolean=True, description="customised")
    def customised(self, obj):
        return obj.customised

    @admin.display(boolean=True, description="enabled")
    def enabled(self, obj):
        email_type = types.get(obj.type)
        return email_type is not None and selectors.is_enabled(email_type)

    @admin.display(description="description")
    def description(self, obj):
        email_type = types.get(obj.type)
        return email_type.description if email_type else "(no longer sent)"

    @admin.display(description="variables")
    def variables(self, obj):
        email_type = types.get(obj.type)
        if email_type is None:
            return ""
        rows = format_html_join(
            "", "<tr><td><code>{}</code></td><td>{}</td></tr>", email_type.variables.items()
        )
        return format_html("<table>{}</table>", rows)

    @admin.display(description="defaults")
    def defaults(self, obj):
        email_type = types.get(obj.type)
        if email_type is None:
            return ""
        return format_html(
            "<p>Subject:</p><pre>{}</pre><p>HTML:</p><pre>{}</pre><p>Text:</p><pre>{}</pre>",
            *(email_type.default(part) for part in types.PARTS),
        )

    @admin.display(description="preview")
    def preview(self, obj):
        if types.get(obj.type) is None:
            return ""
        try:
            shown = services.email_preview(type=obj.type)
        except ServiceError as exc:
            return str(exc.detail)
        return format_html(
            "<p><strong>{}</strong></p>"
            '<iframe sandbox="" srcdoc="{}" style="width:100%;height:480px;border:1px solid #ccc">'
            "</iframe><pre>{}</pre>",
            shown["subject"],
            shown["html"],
            shown["text"],
        )

    def create(self, request, fields):
        raise rule_broken("E-mail templates are made for every type.", code="not_allowed")

    def update(self, request, obj, fields):
        return services.template_update(type=obj.type, fields=fields, user=request.user)

    def remove(self, request, obj):
        services.template_reset(type=obj.type, user=request.user)

    @admin.action(description="Reset to the default templates", permissions=["change"])
    def reset(self, request, queryset):
        for row in queryset:
            services.template_reset(type=row.type, user=request.user)
        self.message_user(request, f"{queryset.count()} template(s) reset.")


@admin.register(SentEmail)
class SentEmailAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "type", "recipient", "subject", "status", "order", "sent_at"]
    list_filter = ["status", "type"]
    search_fields = ["recipient", "subject", "order__order_number"]
    list_select_related = ["order"]
    date_hierarchy = "created_at"
    fields = [
        "type",
        "recipient",
        "subject",
        "status",
        "error",
        "note",
        "order",
        "attempts",
        "created_at",
        "sent_at",
        "failed_at",
    ]
    readonly_fields = fields
