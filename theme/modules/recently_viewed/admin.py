"""The recently viewed rows, read only (the shoppers' own record)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin
from theme.modules.recently_viewed.models import RecentlyViewed


@admin.register(RecentlyViewed)
class RecentlyViewedAdmin(ReadOnlyAdmin):
    list_display = ["product", "user", "viewed_at"]
    list_select_related = ["product", "user"]
