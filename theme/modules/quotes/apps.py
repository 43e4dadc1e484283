from django.apps import AppConfig


class QuotesConfig(AppConfig):
    """The quotes module: requests for quote, answered by staff by e-mail."""

    name = "theme.modules.quotes"
    label = "theme_modules_quotes"
    verbose_name = "Theme: quote requests"
