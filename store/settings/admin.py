from django import forms
from django.contrib import admin

from common.errors import ServiceError
from store.settings import registry, services
from store.settings.models import SettingsSection


class SettingsSectionForm(forms.ModelForm):
    name = forms.ChoiceField(choices=[])

    class Meta:
        model = SettingsSection
        fields = ["name", "values"]
        help_texts = {"values": "Only the keys that differ from the defaults; see below."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["name"].choices = [(name, s.title) for name, s in registry.SECTIONS.items()]

    def clean(self):
        cleaned = super().clean()
        section = registry.get(cleaned.get("name") or "")
        values = cleaned.get("values")
        if section is None or not isinstance(values, dict):
            raise forms.ValidationError({"values": "A JSON object of this section's keys."})
        unknown = sorted(set(values) - set(section.fields()))
        if unknown:
            raise forms.ValidationError({"values": f"Unknown keys: {', '.join(unknown)}."})
        serializer = section.serializer(data=values, partial=True)
        if not serializer.is_valid():
            raise forms.ValidationError(
                {
                    "values": "; ".join(
                        f"{k}: {' '.join(map(str, v))}" for k, v in serializer.errors.items()
                    )
                }
            )
        return cleaned


@admin.register(SettingsSection)
class SettingsSectionAdmin(admin.ModelAdmin):
    form = SettingsSectionForm
    list_display = ["name", "values", "updated_at", "updated_by"]
    readonly_fields = ["defaults", "updated_at", "updated_by"]
    list_select_related = ["updated_by"]

    @admin.display(description="Defaults")
    def defaults(self, obj):
        section = registry.get(obj.name) if obj and obj.name else None
        return section.defaults() if section else "—"

    def save_model(self, request, obj, form, change):
        try:
            services.settings_replace(section=obj.name, values=obj.values, user=request.user)
        except ServiceError as exc:  # already validated by the form; kept for safety
            raise forms.ValidationError(exc.detail) from None

    def delete_model(self, request, obj):
        services.settings_reset(section=obj.name, user=request.user)

    def delete_queryset(self, request, queryset):
        for name in queryset.values_list("name", flat=True):
            services.settings_reset(section=name, user=request.user)
