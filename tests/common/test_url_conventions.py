"""Every portal view is built on PortalViewMixin, so none escapes the shared rules."""

from django.urls import URLPattern, URLResolver, get_resolver

from common.api.views import PortalViewMixin


def walk(patterns, prefix=""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            yield prefix + str(pattern.pattern), pattern.callback


def test_portal_views_use_the_portal_base():
    portal = [
        (route, cb)
        for route, cb in walk(get_resolver().url_patterns)
        if route.startswith("api/v1/portal/")
    ]
    assert len(portal) >= 11
    for route, callback in portal:
        view_class = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
        assert view_class is not None, route
        assert issubclass(view_class, PortalViewMixin), route


def test_portal_routes_have_no_trailing_slash():
    for route, _callback in walk(get_resolver().url_patterns):
        if route.startswith("api/v1/portal/"):
            assert not route.endswith("/"), route
