"""The cart recoveries, read only (written by the beat task and the recovery link)."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin
from theme.modules.recover_cart.models import CartRecovery


@admin.register(CartRecovery)
class CartRecoveryAdmin(ReadOnlyAdmin):
    list_display = ["cart", "email", "sent_at", "restored_at"]
    list_select_related = ["cart"]
    search_fields = ["email"]
