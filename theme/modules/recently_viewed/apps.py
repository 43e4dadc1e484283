from django.apps import AppConfig


class RecentlyViewedConfig(AppConfig):
    """The recently viewed module: the products a shopper looked at, newest first."""

    name = "theme.modules.recently_viewed"
    label = "theme_modules_recently_viewed"
    verbose_name = "Theme: recently viewed"
