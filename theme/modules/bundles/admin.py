"""Bundles and their items in the admin, written through theme.modules.bundles.services."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ServiceAdmin, ServiceForm
from theme.modules.bundles import services
from theme.modules.bundles.models import Bundle, BundleItem


class BundleForm(ServiceForm):
    class Meta:
        model = Bundle
        fields = list(services.BUNDLE_FIELDS)

    def check(self, fields: dict) -> None:
        services.bundle_check(fields=fields, bundle_id=self.instance.pk)


class BundleItemInline(admin.TabularInline):
    """Shown for reading; items are added and changed on their own page (the services)."""

    model = BundleItem
    fields = ["product", "quantity"]
    readonly_fields = ["product", "quantity"]
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Bundle)
class BundleAdmin(ServiceAdmin):
    form = BundleForm
    list_display = ["title", "slug", "discount_percent", "active"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [BundleItemInline]

    def create(self, request, fields):
        return services.bundle_save(fields=fields)

    def update(self, request, obj, fields):
        return services.bundle_save(fields=fields, bundle=obj)

    def remove(self, request, obj):
        services.bundle_delete(bundle=obj)


class BundleItemForm(ServiceForm):
    ids = {"bundle": "bundle_id", "product": "product_id"}

    class Meta:
        model = BundleItem
        fields = ["bundle", "product", "quantity"]

    def check(self, fields: dict) -> None:
        if self.instance.pk and "bundle_id" not in fields:
            fields = {**fields, "bundle_id": self.instance.bundle_id}
        if self.instance.pk and "product_id" not in fields:
            fields = {**fields, "product_id": self.instance.product_id}
        services.bundle_item_check(fields=fields, item_id=self.instance.pk)


@admin.register(BundleItem)
class BundleItemAdmin(ServiceAdmin):
    form = BundleItemForm
    list_display = ["bundle", "product", "quantity"]
    list_select_related = ["bundle", "product"]
    autocomplete_fields = ["product"]

    def create(self, request, fields):
        return services.bundle_item_save(fields=fields)

    def update(self, request, obj, fields):
        return services.bundle_item_save(fields=fields, item=obj)

    def remove(self, request, obj):
        services.bundle_item_delete(item=obj)
