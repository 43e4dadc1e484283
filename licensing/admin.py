from django.contrib import admin

from licensing.models import Product


@admin.register(Product)
class ProductAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "slug",
        "starter_yearly_price",
        "starter_max_domains",
        "business_yearly_price",
        "business_max_domains",
        "is_active",
    ]
    list_filter = ["is_active"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ("name",)}
