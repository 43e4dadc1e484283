"""Admin for tax classes, rates and products' tax classes. EU VAT rates are loaded with
`manage.py load_eu_vat_rates` (from the data the project ships)."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count

from store.tax import services
from store.tax.models import STANDARD, ProductTaxClass, TaxClass, TaxRate


class TaxRateForm(forms.ModelForm):
    class Meta:
        model = TaxRate
        fields = [
            "tax_class",
            "country",
            "region",
            "postcodes",
            "rate",
            "name",
            "priority",
            "applies_to_shipping",
            "enabled",
        ]

    def clean(self):
        cleaned = super().clean()
        cleaned["country"] = (cleaned.get("country") or "").strip().upper()
        region = (cleaned.get("region") or "").strip().upper()
        if region.startswith(f"{cleaned['country']}-"):
            region = region[len(cleaned["country"]) + 1 :]
        cleaned["region"] = region
        problems = services.tax_rate_problems(
            country=cleaned["country"], region=region, postcodes=cleaned.get("postcodes") or ""
        )
        for field, problem in problems.items():
            self.add_error(field, problem)
        rate = cleaned.get("rate")
        if rate is not None and not 0 <= rate <= 100:
            self.add_error("rate", "A rate is a percentage from 0 to 100.")
        return cleaned


class TaxRateInline(admin.TabularInline):
    model = TaxRate
    form = TaxRateForm
    extra = 0
    fields = ["country", "region", "postcodes", "rate", "name", "priority", "enabled"]


@admin.register(TaxClass)
class TaxClassAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "rate_count", "sort_order"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["created_at", "updated_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(rate_total=Count("rates"))

    @admin.display(description="Rates", ordering="rate_total")
    def rate_count(self, obj):
        return obj.rate_total

    def has_delete_permission(self, request, obj=None):
        if obj is not None and obj.slug == STANDARD:
            return False  # products without a class are taxed as standard
        return super().has_delete_permission(request, obj)


@admin.register(TaxRate)
class TaxRateAdmin(admin.ModelAdmin):
    form = TaxRateForm
    list_display = [
        "name",
        "tax_class",
        "country",
        "region",
        "postcodes",
        "rate",
        "priority",
        "applies_to_shipping",
        "enabled",
        "source",
    ]
    list_filter = ["tax_class", "enabled", "source", "applies_to_shipping", "country"]
    search_fields = ["name", "country", "region", "postcodes"]
    list_select_related = ["tax_class"]
    readonly_fields = ["source", "created_at", "updated_at"]
    actions = ["enable", "disable"]
    list_per_page = 100

    @admin.action(description="Enable")
    def enable(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = services.tax_rates_set_enabled(ids=ids, enabled=True)
        self.message_user(request, f"{count} rate(s) enabled.")

    @admin.action(description="Disable")
    def disable(self, request, queryset):
        ids = queryset.values_list("pk", flat=True)
        count = services.tax_rates_set_enabled(ids=ids, enabled=False)
        self.message_user(request, f"{count} rate(s) disabled.", messages.WARNING)


@admin.register(ProductTaxClass)
class ProductTaxClassAdmin(admin.ModelAdmin):
    list_display = ["product", "tax_class"]
    list_filter = ["tax_class"]
    search_fields = ["product__title", "product__sku"]
    list_select_related = ["product", "tax_class"]
    raw_id_fields = ["product"]
