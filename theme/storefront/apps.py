from django.apps import AppConfig


class ThemeStorefrontConfig(AppConfig):
    """The theme namespace's always-present storefront routes: settings, menus, search, cart
    totals, wishlist, VAT validation, newsletter, icons."""

    name = "theme.storefront"
    label = "theme_storefront"
    verbose_name = "Theme: storefront"

    def ready(self):
        from theme.storefront import listeners  # noqa: F401 - connects the receivers
