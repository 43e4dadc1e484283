"""Each module is its own app on the kernel (theme.modules): one installed app per module the
gate knows, and every module route is a view of its own module's app, gated by that module."""

from django.apps import apps
from django.conf import settings
from django.urls import get_resolver

from theme.modules.api.views import ModuleGate


def _module_views() -> set[type]:
    views = set()
    for entry in get_resolver().reverse_dict:
        view_class = getattr(entry, "view_class", None)
        if view_class is not None and issubclass(view_class, ModuleGate):
            views.add(view_class)
    return views


def test_each_module_is_an_app_of_its_own():
    names = {config.name for config in apps.get_app_configs()}
    for module in settings.THEME_MODULES_ALL:
        config = apps.get_app_config(f"theme_modules_{module}")
        assert config.name == f"theme.modules.{module}"
    assert "theme.modules" in names  # the kernel


def test_every_module_route_is_served_and_gated_by_its_own_app():
    views = _module_views()
    assert {view.module for view in views} == set(settings.THEME_MODULES_ALL)
    for view in views:
        assert view.__module__ == f"theme.modules.{view.module}.api.views", view
