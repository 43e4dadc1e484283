from django.apps import AppConfig


class BundlesConfig(AppConfig):
    """The bundles module: products sold together at a discount, edited in the admin."""

    name = "theme.modules.bundles"
    label = "theme_modules_bundles"
    verbose_name = "Theme: bundles"
