"""Page builder admin: layouts and templates, their blocks edited as JSON and checked by the
block schemas; every write goes through theme.builder.services (a layout saved here raises
its version, as through the API)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ServiceAdmin, ServiceForm
from theme.builder import services
from theme.builder.models import Layout, LayoutTemplate


class LayoutForm(ServiceForm):
    class Meta:
        model = Layout
        fields = ["page_id", "status", "blocks"]

    def check(self, fields: dict) -> None:
        if "blocks" in fields:
            services.layout_clean(fields["blocks"])


@admin.register(Layout)
class LayoutAdmin(ServiceAdmin):
    form = LayoutForm
    list_display = ["page_id", "status", "version", "author", "updated_at"]
    list_filter = ["status"]
    list_select_related = ["author"]
    search_fields = ["page_id"]
    readonly_fields = ["version", "author", "updated_by", "created_at", "updated_at"]

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "page_id"] if obj is not None else fields

    def create(self, request, fields):
        return services.layout_save(
            page_id=fields["page_id"],
            blocks=fields.get("blocks", []),
            status=fields.get("status", "draft"),
            version=0,
            user=request.user,
        )

    def update(self, request, obj, fields):
        return services.layout_save(
            page_id=obj.page_id,
            blocks=fields.get("blocks", obj.blocks),
            status=fields.get("status", obj.status),
            version=obj.version,
            user=request.user,
        )

    def remove(self, request, obj):
        services.layout_delete(page_id=obj.page_id)


class LayoutTemplateForm(ServiceForm):
    class Meta:
        model = LayoutTemplate
        fields = list(services.TEMPLATE_FIELDS)

    def check(self, fields: dict) -> None:
        services.template_check(fields=fields, template_id=self.instance.pk)


@admin.register(LayoutTemplate)
class LayoutTemplateAdmin(ServiceAdmin):
    form = LayoutTemplateForm
    list_display = ["name", "version", "author", "updated_at"]
    list_select_related = ["author"]
    search_fields = ["name"]
    readonly_fields = ["version", "author", "created_at", "updated_at"]

    def create(self, request, fields):
        return services.template_create(fields=fields, user=request.user)

    def update(self, request, obj, fields):
        return services.template_update(template_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.template_delete(template_id=obj.pk)
