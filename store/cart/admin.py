"""Admin for carts: what shoppers hold, for support. Lines are changed by the shoppers
themselves (through the rules); staff may delete carts."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count, Sum

from store.cart.models import Cart, CartCoupon, CartItem


class CartItemInline(admin.TabularInline):
    model = CartItem
    extra = 0
    fields = ["product", "variant", "quantity", "options", "key", "updated_at"]
    readonly_fields = fields
    can_delete = True

    def has_add_permission(self, request, obj=None):
        return False


class CartCouponInline(admin.TabularInline):
    model = CartCoupon
    extra = 0
    fields = ["coupon", "applied_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


class OwnerFilter(admin.SimpleListFilter):
    title = "owner"
    parameter_name = "owner"

    def lookups(self, request, model_admin):
        return [("guest", "Guest"), ("customer", "Customer")]

    def queryset(self, request, queryset):
        if self.value() == "guest":
            return queryset.filter(user__isnull=True)
        if self.value() == "customer":
            return queryset.filter(user__isnull=False)
        return queryset


@admin.register(Cart)
class CartAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "owner",
        "line_count",
        "unit_count",
        "shipping_country",
        "updated_at",
        "created_at",
    ]
    list_filter = [OwnerFilter, "shipping_country"]
    search_fields = ["user__email", "token", "items__product__title"]
    list_select_related = ["user"]
    fields = [
        "token",
        "user",
        "shipping_country",
        "shipping_region",
        "shipping_postcode",
        "shipping_method",
        "created_at",
        "updated_at",
    ]
    readonly_fields = fields
    inlines = [CartItemInline, CartCouponInline]
    date_hierarchy = "updated_at"

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(lines=Count("items", distinct=True), units=Sum("items__quantity"))
        )

    @admin.display(description="Owner", ordering="user__email")
    def owner(self, obj):
        return obj.user.email if obj.user_id else "guest"

    @admin.display(description="Lines", ordering="lines")
    def line_count(self, obj):
        return obj.lines

    @admin.display(description="Units", ordering="units")
    def unit_count(self, obj):
        return obj.units or 0
