"""Theme modules admin: bundles and their items, promotion rules, B2B customer groups (their
members are set through the API), quote requests (read; their status changed by actions), and
the rows the modules record (points, recently viewed, cart recoveries: read only). Every write
goes through theme.modules.services."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from theme.modules import services
from theme.modules.models import (
    Bundle,
    BundleItem,
    CartRecovery,
    CustomerGroup,
    PointsEntry,
    Promotion,
    Quote,
    QuoteItem,
    QuoteStatus,
    RecentlyViewed,
)


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
    readonly_fields = fields
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


class PromotionForm(ServiceForm):
    class Meta:
        model = Promotion
        fields = list(services.PROMOTION_FIELDS)

    def check(self, fields: dict) -> None:
        services.promotion_check(
            fields=fields, promotion=self.instance if self.instance.pk else None
        )


@admin.register(Promotion)
class PromotionAdmin(ServiceAdmin):
    form = PromotionForm
    list_display = ["name", "kind", "value", "min_subtotal", "active", "starts_at", "ends_at"]
    list_filter = ["active", "kind"]

    def create(self, request, fields):
        return services.promotion_save(fields=fields)

    def update(self, request, obj, fields):
        return services.promotion_save(fields=fields, promotion=obj)

    def remove(self, request, obj):
        services.promotion_delete(promotion=obj)


class CustomerGroupForm(ServiceForm):
    class Meta:
        model = CustomerGroup
        fields = list(services.GROUP_FIELDS)

    def check(self, fields: dict) -> None:
        services.group_check(fields=fields, group_id=self.instance.pk)


@admin.register(CustomerGroup)
class CustomerGroupAdmin(ServiceAdmin):
    form = CustomerGroupForm
    list_display = ["name", "discount_percent"]
    search_fields = ["name"]

    def create(self, request, fields):
        return services.group_save(fields=fields)

    def update(self, request, obj, fields):
        return services.group_save(fields=fields, group_id=obj.pk)

    def remove(self, request, obj):
        services.group_delete(group_id=obj.pk)


class QuoteItemInline(admin.TabularInline):
    model = QuoteItem
    fields = ["product", "quantity"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


def _status_action(status: str, label: str):
    def action(modeladmin, request, queryset):
        ids = list(queryset.values_list("pk", flat=True))
        for_each(
            modeladmin,
            request,
            ids,
            lambda pk: services.quote_status_set(quote_id=pk, status=status),
            label="Quote",
        )

    action.__name__ = f"mark_{status}"
    action.short_description = f"Mark as {label}"
    return action


@admin.register(Quote)
class QuoteAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "email", "company", "status", "created_at"]
    list_filter = ["status"]
    search_fields = ["name", "email", "company"]
    inlines = [QuoteItemInline]
    actions = [
        _status_action(QuoteStatus.ANSWERED, "answered"),
        _status_action(QuoteStatus.CLOSED, "closed"),
    ]


@admin.register(PointsEntry)
class PointsEntryAdmin(ReadOnlyAdmin):
    list_display = ["user", "kind", "points", "order", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["user", "order"]
    search_fields = ["user__email"]


@admin.register(RecentlyViewed)
class RecentlyViewedAdmin(ReadOnlyAdmin):
    list_display = ["product", "user", "viewed_at"]
    list_select_related = ["product", "user"]


@admin.register(CartRecovery)
class CartRecoveryAdmin(ReadOnlyAdmin):
    list_display = ["cart", "email", "sent_at", "restored_at"]
    list_select_related = ["cart"]
    search_fields = ["email"]
