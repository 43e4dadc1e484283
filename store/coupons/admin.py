"""Admin for coupons (checked by the same rules as the API) and their uses."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ActionsInHistory, ServiceAdmin, ServiceForm, for_each
from store.coupons import services
from store.coupons.models import Coupon, CouponUse, CouponUseStatus

# The service's id lists and the form fields that show them.
FIELD_OF = {
    "product_ids": "products",
    "excluded_product_ids": "excluded_products",
    "category_ids": "categories",
    "excluded_category_ids": "excluded_categories",
}


class CouponForm(ServiceForm):
    params = FIELD_OF

    class Meta:
        model = Coupon
        fields = [
            "code",
            "description",
            "discount_type",
            "amount",
            "free_shipping",
            "expires_at",
            "minimum_amount",
            "maximum_amount",
            "usage_limit",
            "usage_limit_per_user",
            "individual_use",
            "exclude_sale_items",
            "products",
            "excluded_products",
            "categories",
            "excluded_categories",
            "enabled",
        ]

    def service_fields(self) -> dict:
        fields = super().service_fields()
        for param, name in FIELD_OF.items():
            if name in fields:
                fields[param] = [obj.pk for obj in fields.pop(name) or []]
        if "code" in fields:
            fields["code"] = services.normalise_code(fields["code"] or "")
        return fields

    def check(self, fields: dict) -> None:
        services.coupon_check_fields(fields, self.instance if self.instance.pk else None)

    def clean(self):
        cleaned = super().clean()
        if "code" in cleaned:
            cleaned["code"] = services.normalise_code(cleaned["code"] or "")
        return cleaned


@admin.register(Coupon)
class CouponAdmin(ServiceAdmin):
    form = CouponForm
    list_display = [
        "code",
        "discount_type",
        "amount",
        "free_shipping",
        "usage_count",
        "usage_limit",
        "expires_at",
        "enabled",
    ]
    list_filter = ["enabled", "discount_type", "free_shipping", "individual_use"]
    search_fields = ["code", "description"]
    autocomplete_fields = ["products", "excluded_products", "categories", "excluded_categories"]
    readonly_fields = ["usage_count", "created_at", "updated_at"]
    actions = ["enable", "disable"]
    fieldsets = [
        (None, {"fields": ["code", "description", "enabled"]}),
        ("Discount", {"fields": ["discount_type", "amount", "free_shipping", "expires_at"]}),
        (
            "Restrictions",
            {
                "fields": [
                    "minimum_amount",
                    "maximum_amount",
                    "individual_use",
                    "exclude_sale_items",
                    "products",
                    "excluded_products",
                    "categories",
                    "excluded_categories",
                ]
            },
        ),
        ("Limits", {"fields": ["usage_limit", "usage_limit_per_user", "usage_count"]}),
        ("Dates", {"fields": ["created_at", "updated_at"]}),
    ]

    def create(self, request, fields):
        return services.coupon_create(fields=fields)

    def update(self, request, obj, fields):
        return services.coupon_update(coupon_id=obj.pk, fields=fields)

    def remove(self, request, obj):
        services.coupon_delete(coupon_id=obj.pk)

    def _set_enabled(self, request, queryset, enabled: bool) -> int:
        return for_each(
            self,
            request,
            queryset.values_list("pk", flat=True),
            lambda pk: services.coupon_update(coupon_id=pk, fields={"enabled": enabled}),
            label="Coupon",
        )

    @admin.action(description="Enable")
    def enable(self, request, queryset):
        self.message_user(
            request, f"{self._set_enabled(request, queryset, True)} coupon(s) enabled."
        )

    @admin.action(description="Disable")
    def disable(self, request, queryset):
        done = self._set_enabled(request, queryset, False)
        self.message_user(request, f"{done} coupon(s) disabled.")


@admin.register(CouponUse)
class CouponUseAdmin(ActionsInHistory, admin.ModelAdmin):
    list_display = [
        "coupon",
        "order_reference",
        "status",
        "user",
        "email",
        "held_until",
        "created_at",
        "confirmed_at",
    ]
    list_filter = ["status"]
    search_fields = ["coupon__code", "order_reference", "email", "user__email"]
    list_select_related = ["coupon", "user"]
    actions = ["release"]

    def has_add_permission(self, request):
        return False  # uses come from checkouts and orders

    def has_change_permission(self, request, obj=None):
        return False

    @admin.action(description="Release (give the uses back)")
    def release(self, request, queryset):
        references = set(
            queryset.exclude(status=CouponUseStatus.RELEASED).values_list(
                "order_reference", flat=True
            )
        )
        released = sum(services.coupon_uses_release(order_reference=ref) for ref in references)
        self.message_user(request, f"{released} use(s) released.")
