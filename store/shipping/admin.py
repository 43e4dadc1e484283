"""Admin for shipping zones (their regions and methods inline) and methods. Every write goes
through store.shipping.services, checked by the same rules as the API (regions, the one
fallback zone, each method type's settings)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count

from common.admin import ServiceAdmin, ServiceForm, add_refusal
from common.errors import ServiceError
from store.shipping import services, types
from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation

SETTINGS_HELP = (
    "The type's settings as JSON (GET /shipping/method-types): flat_rate {cost, cost_per_item}; "
    'free_shipping {requires, min_amount}; weight_based {cost, weight_rates: [{"max_weight": '
    '"1", "cost": "4.00"}, ...]}; local_pickup {cost}. Left out: the defaults.'
)


class ZoneForm(ServiceForm):
    class Meta:
        model = ShippingZone
        fields = ["name", "sort_order", "is_fallback"]

    def check(self, fields: dict) -> None:
        services.zone_check(self.instance if self.instance.pk else None, fields)


class LocationForm(forms.ModelForm):
    class Meta:
        model = ShippingZoneLocation
        fields = ["type", "code"]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("type") and cleaned.get("code"):
            try:
                cleaned["code"] = services.location_clean(
                    type=cleaned["type"], code=cleaned["code"]
                )
            except ValueError as exc:
                self.add_error("code", str(exc))
        return cleaned


class MethodForm(ServiceForm):
    settings = forms.JSONField(required=False, help_text=SETTINGS_HELP)
    ids = {"zone": "zone_id"}

    class Meta:
        model = ShippingMethod
        fields = ["zone", "type", "title", "description", "enabled", "sort_order", "taxable"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial.setdefault("settings", types.settings_of(self.instance))

    def service_fields(self) -> dict:
        fields = super().service_fields()
        if fields.get("zone_id") is None:
            fields.pop("zone_id", None)  # inline on a zone being added: set when it is made
        if self.instance.pk is None or "settings" in self.changed_data:
            fields["settings"] = self.cleaned_data.get("settings") or {}
        return fields

    def check(self, fields: dict) -> None:
        services.method_check(self.instance if self.instance.pk else None, fields)


class LocationInline(admin.TabularInline):
    model = ShippingZoneLocation
    form = LocationForm
    extra = 1
    verbose_name = "region"
    verbose_name_plural = "regions (countries, ISO 3166-2 regions, postcode patterns)"


class MethodInline(admin.StackedInline):
    model = ShippingMethod
    form = MethodForm
    extra = 0
    show_change_link = True
    fields = ["type", "title", "description", "enabled", "sort_order", "taxable", "settings"]


@admin.register(ShippingZone)
class ShippingZoneAdmin(ServiceAdmin):
    form = ZoneForm
    list_display = ["name", "sort_order", "is_fallback", "location_list", "method_count"]
    search_fields = ["name", "locations__code"]
    readonly_fields = ["created_at", "updated_at"]
    inlines = [LocationInline, MethodInline]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(method_total=Count("methods", distinct=True))
            .prefetch_related("locations")
        )

    @admin.display(description="Regions")
    def location_list(self, obj):
        if obj.is_fallback:
            return "everywhere else"
        return ", ".join(loc.code for loc in obj.locations.all()) or "(none: never matches)"

    @admin.display(description="Methods", ordering="method_total")
    def method_count(self, obj):
        return obj.method_total

    # The service calls.
    def create(self, request, fields):
        return services.zone_create(fields=fields)

    def update(self, request, obj, fields):
        return services.zone_update(zone_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.zone_delete(zone_id=obj.pk)

    def save_formset(self, request, form, formset, change):
        zone_id = form.instance.pk
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        if formset.model is ShippingZoneLocation:
            self._save_regions(zone_id, formset)
        else:
            self._save_methods(zone_id, formset)

    def _save_regions(self, zone_id, formset) -> None:
        """The regions kept, changed and added, set at once (zone_update checks them)."""
        if not any(f.has_changed() for f in formset.forms) and not formset.deleted_forms:
            return
        regions = []
        for region_form in formset.forms:
            if region_form in formset.deleted_forms:
                continue
            data = region_form.cleaned_data
            if data.get("type") and data.get("code"):
                regions.append({"type": data["type"], "code": data["code"]})
        services.zone_update(zone_id=zone_id, fields={"regions": regions})

    def _save_methods(self, zone_id, formset) -> None:
        for method_form in formset.deleted_forms:
            if method_form.instance.pk:
                services.method_delete(method_id=method_form.instance.pk)
                formset.deleted_objects.append(method_form.instance)
        for method_form in formset.forms:
            if method_form in formset.deleted_forms or not method_form.has_changed():
                continue
            fields = method_form.checked_fields
            try:
                if method_form.instance.pk:
                    row = services.method_update(method_id=method_form.instance.pk, fields=fields)
                    formset.changed_objects.append((row, method_form.changed_data))
                else:
                    fields.pop("zone_id", None)
                    row = services.method_create(zone_id=zone_id, fields=fields)
                    formset.new_objects.append(row)
            except ServiceError as exc:
                add_refusal(method_form, exc)
                raise


@admin.register(ShippingMethod)
class ShippingMethodAdmin(ServiceAdmin):
    form = MethodForm
    list_display = ["title", "zone", "type", "enabled", "cost", "min_amount", "sort_order"]
    list_filter = ["type", "enabled", "zone"]
    search_fields = ["title", "zone__name"]
    list_select_related = ["zone"]
    readonly_fields = ["created_at", "updated_at"]
    fields = [
        "zone",
        "type",
        "title",
        "description",
        "enabled",
        "sort_order",
        "taxable",
        "settings",
        "created_at",
        "updated_at",
    ]

    def create(self, request, fields):
        zone_id = fields.pop("zone_id")
        return services.method_create(zone_id=zone_id, fields=fields)

    def update(self, request, obj, fields):
        return services.method_update(method_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.method_delete(method_id=obj.pk)
