from django.apps import AppConfig


class PointsConfig(AppConfig):
    """The loyalty points module: earned once per paid order, reversed once on a refund."""

    name = "theme.modules.points"
    label = "theme_modules_points"
    verbose_name = "Theme: loyalty points"

    def ready(self):
        from theme.modules.points import listeners  # noqa: F401 - connects the receivers
