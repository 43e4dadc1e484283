"""B2B customer groups in the admin (their members are set through the API), written through
theme.modules.b2b.services (the cached discounts bumped on each write)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ServiceAdmin, ServiceForm
from theme.modules.b2b import services
from theme.modules.b2b.models import CustomerGroup


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
