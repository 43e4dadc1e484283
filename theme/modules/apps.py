from django.apps import AppConfig


class ThemeModulesConfig(AppConfig):
    """The theme's optional modules (recently viewed, bundles, loyalty points, promotions, quotes,
    product names, labels, B2B groups, abandoned-cart recovery), each on when its setting is."""

    name = "theme.modules"
    label = "theme_modules"
    verbose_name = "Theme: modules"

    def ready(self):
        from theme.modules import listeners  # noqa: F401 - connects the receivers
