from django.apps import AppConfig


class RecoverCartConfig(AppConfig):
    """The abandoned-cart recovery module: a beat task e-mails the shopper of an idle cart a
    link that restores it."""

    name = "theme.modules.recover_cart"
    label = "theme_modules_recover_cart"
    verbose_name = "Theme: abandoned-cart recovery"
