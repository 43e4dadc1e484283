from django.apps import AppConfig


class B2bConfig(AppConfig):
    """The B2B module: customer groups whose members pay catalogue prices less the group's
    discount, through the store's ec_cart_item_price hook (settings.STORE_HOOKS)."""

    name = "theme.modules.b2b"
    label = "theme_modules_b2b"
    verbose_name = "Theme: B2B customer groups"
