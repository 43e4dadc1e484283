from django.urls import path

from . import views

urlpatterns = [
    path("shipping/zones", views.ZonesView.as_view(), name="store-shipping-zones"),
    path(
        "shipping/zones/reorder",
        views.ZonesReorderView.as_view(),
        name="store-shipping-zones-reorder",
    ),
    path("shipping/zones/<id:zone_id>", views.ZoneDetailView.as_view(), name="store-shipping-zone"),
    path(
        "shipping/zones/<id:zone_id>/methods",
        views.ZoneMethodsView.as_view(),
        name="store-shipping-zone-methods",
    ),
    path(
        "shipping/methods/<id:method_id>",
        views.MethodDetailView.as_view(),
        name="store-shipping-method",
    ),
    path("shipping/calculate", views.CalculateView.as_view(), name="store-shipping-calculate"),
    path("shipping/countries", views.CountriesView.as_view(), name="store-shipping-countries"),
    path("shipping/stats", views.StatsView.as_view(), name="store-shipping-stats"),
    path(
        "shipping/method-types",
        views.MethodTypesView.as_view(),
        name="store-shipping-method-types",
    ),
]
