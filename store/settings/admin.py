"""Store settings in the admin: every declared section is listed (stored or not) and edited
as a form of typed fields showing their defaults; saving goes through the settings service
(the API's validation; only the values that differ from the defaults are stored); a button
resets a section to its defaults. Sections exist in code, so none is added or deleted here."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.options import csrf_protect_m
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse

from store.settings import registry, services
from store.settings.forms import section_form
from store.settings.models import SettingsSection

RECORD = ["updated_at", "updated_by"]


@admin.register(SettingsSection)
class SettingsSectionAdmin(admin.ModelAdmin):
    change_list_template = "admin/store_settings/settingssection/sections.html"
    change_form_template = "admin/store_settings/settingssection/change_form.html"
    readonly_fields = RECORD

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # "Reset to defaults" instead

    def get_object(self, request, object_id, from_field=None):
        """The stored row of a declared section, or an unsaved one (all defaults); an unknown
        section does not exist."""
        if registry.get(object_id) is None:
            return None
        return SettingsSection.objects.filter(name=object_id).first() or SettingsSection(
            name=object_id, values={}
        )

    def get_fieldsets(self, request, obj=None):
        section = registry.get(obj.name)
        return [(section.title, {"fields": list(section.fields())}), ("Record", {"fields": RECORD})]

    def get_form(self, request, obj=None, change=False, **kwargs):
        kwargs["form"] = section_form(registry.get(obj.name))
        return super().get_form(request, obj, change, **kwargs)

    def save_model(self, request, obj, form, change):
        services.settings_replace(
            section=obj.name, values=form.changed_from_defaults(), user=request.user
        )

    @csrf_protect_m
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        if request.method == "POST" and "_reset" in request.POST and object_id:
            return self._reset(request, unquote(object_id))
        return super().changeform_view(request, object_id, form_url, extra_context)

    def _reset(self, request, name: str):
        obj = self.get_object(request, name)
        if obj is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, name)
        if not self.has_change_permission(request, obj):
            raise PermissionDenied
        services.settings_reset(section=name, user=request.user)
        self.log_change(request, obj, "Reset to the defaults.")
        self.message_user(
            request, f"{registry.get(name).title}: every setting is back to its default."
        )
        return HttpResponseRedirect(request.path)

    def changelist_view(self, request, extra_context=None):
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        stored = {row.name: row for row in SettingsSection.objects.select_related("updated_by")}
        sections = []
        for name, section in registry.SECTIONS.items():
            row = stored.get(name)
            defaults = section.defaults()
            changed = sorted(
                key
                for key, value in (row.values if row else {}).items()
                if defaults.get(key, value) != value
            )
            sections.append(
                {
                    "name": name,
                    "title": section.title,
                    "changed": changed,
                    "updated_at": row.updated_at if row else None,
                    "updated_by": row.updated_by if row else None,
                    "url": reverse("admin:store_settings_settingssection_change", args=[name]),
                }
            )
        context = {
            **self.admin_site.each_context(request),
            "title": "Store settings",
            "opts": self.opts,
            "sections": sections,
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.change_list_template, context)
