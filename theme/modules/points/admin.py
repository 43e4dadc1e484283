"""The points entries, read only (written by the order events' receivers)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin
from theme.modules.points.models import PointsEntry


@admin.register(PointsEntry)
class PointsEntryAdmin(ReadOnlyAdmin):
    list_display = ["user", "kind", "points", "order", "created_at"]
    list_filter = ["kind"]
    list_select_related = ["user", "order"]
    search_fields = ["user__email"]
