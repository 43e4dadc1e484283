from django.apps import AppConfig


class LabelsConfig(AppConfig):
    """The labels module: a product's labels computed from it (no rows of its own)."""

    name = "theme.modules.labels"
    label = "theme_modules_labels"
    verbose_name = "Theme: product labels"
