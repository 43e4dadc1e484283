"""Storefront admin: menus and their items, the theme settings (a JSON of the keys set,
checked by the declaration), newsletter subscriptions (read, unsubscribed by an action) and
wishlists (read). Every write goes through theme.storefront.services."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin, ServiceAdmin, ServiceForm, for_each
from theme.storefront import selectors, services
from theme.storefront.models import (
    Menu,
    MenuItem,
    NewsletterSubscription,
    ThemeSettings,
    WishlistItem,
)


class MenuForm(ServiceForm):
    class Meta:
        model = Menu
        fields = list(services.MENU_FIELDS)

    def check(self, fields: dict) -> None:
        services.menu_check(fields=fields, menu_id=self.instance.pk)


class MenuItemInline(admin.TabularInline):
    """Shown for reading; items are added and changed on their own page (through the
    services)."""

    model = MenuItem
    fields = ["label", "url", "parent", "position", "open_in_new_tab"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Menu)
class MenuAdmin(ServiceAdmin):
    form = MenuForm
    list_display = ["name", "location", "updated_at"]
    inlines = [MenuItemInline]

    def create(self, request, fields):
        return services.menu_save(fields=fields)

    def update(self, request, obj, fields):
        return services.menu_save(fields=fields, menu_id=obj.pk)

    def remove(self, request, obj):
        services.menu_delete(menu_id=obj.pk)


class MenuItemForm(ServiceForm):
    class Meta:
        model = MenuItem
        fields = list(services.MENU_ITEM_FIELDS)

    def check(self, fields: dict) -> None:
        menu = fields.get("menu") or (self.instance.menu if self.instance.pk else None)
        services.menu_item_check(fields=fields, item_id=self.instance.pk, menu=menu)


@admin.register(MenuItem)
class MenuItemAdmin(ServiceAdmin):
    form = MenuItemForm
    list_display = ["label", "menu", "parent", "url", "position"]
    list_filter = ["menu"]
    list_select_related = ["menu", "parent"]
    search_fields = ["label", "url"]

    def create(self, request, fields):
        return services.menu_item_save(fields=fields)

    def update(self, request, obj, fields):
        return services.menu_item_save(fields=fields, item_id=obj.pk)

    def remove(self, request, obj):
        services.menu_item_delete(item_id=obj.pk)


class ThemeSettingsForm(ServiceForm):
    class Meta:
        model = ThemeSettings
        fields = ["values"]
        help_texts = {"values": "A JSON object of the keys set; the others keep their defaults."}

    def check(self, fields: dict) -> None:
        if "values" in fields:
            services.theme_settings_check(fields["values"])


@admin.register(ThemeSettings)
class ThemeSettingsAdmin(ServiceAdmin):
    form = ThemeSettingsForm
    list_display = ["name", "updated_at", "updated_by"]
    readonly_fields = ["updated_at", "updated_by"]

    def has_add_permission(self, request):
        exists = ThemeSettings.objects.filter(name=selectors.SETTINGS_NAME).exists()
        return not exists and super().has_add_permission(request)

    def _save(self, request, fields):
        services.theme_settings_update(
            values=fields.get("values", {}), user=request.user, replace=True
        )
        return ThemeSettings.objects.get(name=selectors.SETTINGS_NAME)

    def create(self, request, fields):
        return self._save(request, fields)

    def update(self, request, obj, fields):
        return self._save(request, {"values": fields.get("values", obj.values)})

    def remove(self, request, obj):
        services.theme_settings_update(values={}, user=request.user, replace=True)


@admin.register(NewsletterSubscription)
class NewsletterSubscriptionAdmin(ReadOnlyAdmin):
    list_display = ["email", "status", "created_at", "confirmation_sent_at", "confirmed_at"]
    list_filter = ["status"]
    search_fields = ["email"]
    actions = ["unsubscribe"]

    @admin.action(description="Unsubscribe the selected addresses")
    def unsubscribe(self, request, queryset):
        ids = list(queryset.values_list("pk", flat=True))
        done = for_each(
            self,
            request,
            ids,
            lambda pk: services.newsletter_unsubscribe(subscription_id=pk),
            label="subscription",
        )
        self.message_user(request, f"{done} address(es) unsubscribed.")


@admin.register(WishlistItem)
class WishlistItemAdmin(ReadOnlyAdmin):
    list_display = ["product", "user", "created_at"]
    list_select_related = ["product", "user"]
    raw_id_fields = ["product", "user"]
