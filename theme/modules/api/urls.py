"""The module routes of the theme namespace: each module's app answers its own paths (the
paths and route names the modules had in one app). theme.urls mounts this list."""

from django.urls import include, path

urlpatterns = [
    path("", include("theme.modules.recently_viewed.api.urls")),
    path("", include("theme.modules.bundles.api.urls")),
    path("", include("theme.modules.points.api.urls")),
    path("", include("theme.modules.promotions.api.urls")),
    path("", include("theme.modules.quotes.api.urls")),
    path("", include("theme.modules.product_names.api.urls")),
    path("", include("theme.modules.labels.api.urls")),
    path("", include("theme.modules.b2b.api.urls")),
    path("", include("theme.modules.recover_cart.api.urls")),
]
