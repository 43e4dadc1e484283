from django.apps import AppConfig


class ThemeModulesConfig(AppConfig):
    """The theme modules' shared kernel: the on/off gate (settings.THEME_MODULES), the gated
    base views, the page helpers and the serializers every module answers with. Each module is
    its own app under this package (theme.modules.<module>), and builds on this kernel only.

    The kernel owns no rows: its migrations created the modules' tables before the split, and
    its last one hands their state to the modules' apps (the tables keep their names)."""

    name = "theme.modules"
    label = "theme_modules"
    verbose_name = "Theme: modules"
