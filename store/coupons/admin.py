"""Admin for coupons (checked by the same rules as the API) and their uses."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from common.errors import ServiceError
from store.coupons import selectors, services
from store.coupons.models import Coupon, CouponUse, CouponUseStatus

FIELD_OF = {
    "product_ids": "products",
    "excluded_product_ids": "excluded_products",
    "category_ids": "categories",
    "excluded_category_ids": "excluded_categories",
}


class CouponForm(forms.ModelForm):
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

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        fields = {
            name: cleaned.get(name)
            for name in ("code", "discount_type", "amount", "minimum_amount", "maximum_amount")
        }
        for name, field in FIELD_OF.items():
            fields[name] = [obj.pk for obj in cleaned.get(field) or []]
        cleaned["code"] = services.normalise_code(cleaned.get("code") or "")
        try:
            services.coupon_check_fields(fields, self.instance if self.instance.pk else None)
        except ServiceError as exc:
            for name, messages_ in (exc.errors or {"code": [exc.detail]}).items():
                self.add_error(FIELD_OF.get(name, name), " ".join(messages_))
        return cleaned


@admin.register(Coupon)
class CouponAdmin(admin.ModelAdmin):
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

    @admin.action(description="Enable")
    def enable(self, request, queryset):
        count = queryset.update(enabled=True)
        selectors.invalidate_terms()
        self.message_user(request, f"{count} coupon(s) enabled.")

    @admin.action(description="Disable")
    def disable(self, request, queryset):
        count = queryset.update(enabled=False)
        selectors.invalidate_terms()
        self.message_user(request, f"{count} coupon(s) disabled.")

    def delete_model(self, request, obj):
        services.coupon_delete(coupon_id=obj.pk)

    def delete_queryset(self, request, queryset):
        for pk in queryset.values_list("pk", flat=True):
            try:
                services.coupon_delete(coupon_id=pk)
            except ServiceError as exc:
                self.message_user(request, exc.detail, messages.ERROR)


@admin.register(CouponUse)
class CouponUseAdmin(admin.ModelAdmin):
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
