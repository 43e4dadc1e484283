from django.apps import AppConfig


class ThemeBuilderConfig(AppConfig):
    """The page builder: layouts per page, block types with JSON schemas, server-side rendering
    with every content escaped, templates and presets."""

    name = "theme.builder"
    label = "theme_builder"
    verbose_name = "Theme: page builder"
