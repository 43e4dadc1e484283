from django.apps import AppConfig


class PromotionsConfig(AppConfig):
    """The promotions module: automatic cart promotions (no code), cut through the store's
    ec_cart_calculated_totals hook (settings.STORE_HOOKS)."""

    name = "theme.modules.promotions"
    label = "theme_modules_promotions"
    verbose_name = "Theme: promotions"
