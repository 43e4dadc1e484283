from django.apps import AppConfig


class ProductNamesConfig(AppConfig):
    """The product names module: active products' titles by id (no rows of its own)."""

    name = "theme.modules.product_names"
    label = "theme_modules_product_names"
    verbose_name = "Theme: product names"
