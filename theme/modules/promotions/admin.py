"""The promotion rules in the admin, written through theme.modules.promotions.services (the
cached rules bumped on each write)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ServiceAdmin, ServiceForm
from theme.modules.promotions import services
from theme.modules.promotions.models import Promotion


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
