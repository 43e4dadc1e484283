"""Admin for shipping zones (with their locations and methods) and methods."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db.models import Count

from store.shipping import services
from store.shipping.models import ShippingMethod, ShippingZone, ShippingZoneLocation


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


class MethodForm(forms.ModelForm):
    class Meta:
        model = ShippingMethod
        fields = [
            "zone",
            "type",
            "title",
            "description",
            "enabled",
            "sort_order",
            "cost",
            "cost_per_item",
            "min_amount",
            "requires",
            "weight_rates",
            "taxable",
        ]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("type"):
            problems = services.method_problems(
                type=cleaned["type"],
                min_amount=cleaned.get("min_amount"),
                requires=cleaned.get("requires"),
                weight_rates=cleaned.get("weight_rates") or [],
            )
            for field, problem in problems.items():
                self.add_error(field, problem)
        return cleaned


class LocationInline(admin.TabularInline):
    model = ShippingZoneLocation
    form = LocationForm
    extra = 1


class MethodInline(admin.TabularInline):
    model = ShippingMethod
    form = MethodForm
    extra = 0
    show_change_link = True
    fields = ["type", "title", "enabled", "sort_order", "cost", "min_amount", "requires"]


@admin.register(ShippingZone)
class ShippingZoneAdmin(admin.ModelAdmin):
    list_display = ["name", "sort_order", "is_fallback", "location_list", "method_count"]
    list_editable = ["sort_order"]
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

    @admin.display(description="Locations")
    def location_list(self, obj):
        if obj.is_fallback:
            return "everywhere else"
        return ", ".join(loc.code for loc in obj.locations.all()) or "(none: never matches)"

    @admin.display(description="Methods", ordering="method_total")
    def method_count(self, obj):
        return obj.method_total


@admin.register(ShippingMethod)
class ShippingMethodAdmin(admin.ModelAdmin):
    form = MethodForm
    list_display = ["title", "zone", "type", "enabled", "cost", "min_amount", "sort_order"]
    list_filter = ["type", "enabled", "zone"]
    search_fields = ["title", "zone__name"]
    list_select_related = ["zone"]
    readonly_fields = ["created_at", "updated_at"]
