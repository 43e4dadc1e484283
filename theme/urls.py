"""The theme namespace's routes, mounted under /{REST_ROOT}/{THEME_NS}/v1/ (config/urls.py):
every theme sub-app's api/urls.py. Sub-apps added later append theirs here."""

from django.urls import include, path

urlpatterns = [
    path("", include("theme.storefront.api.urls")),
    path("", include("theme.builder.api.urls")),
    path("", include("theme.modules.api.urls")),
    path("", include("theme.mcp.api.urls")),
    # The namespace's own OpenAPI description.
    path("", include("theme.docs.api.urls")),
]
