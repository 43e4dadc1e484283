from django.urls import path

from . import views

urlpatterns = [
    path("tax/classes", views.TaxClassListView.as_view(), name="store-tax-classes"),
    path("tax/classes/<str:class_ref>", views.TaxClassDetailView.as_view(), name="store-tax-class"),
    path("tax/rates", views.TaxRateListView.as_view(), name="store-tax-rates"),
    path("tax/rates/<id:rate_id>", views.TaxRateDetailView.as_view(), name="store-tax-rate"),
    path(
        "tax/rates/<id:rate_id>/toggle",
        views.TaxRateToggleView.as_view(),
        name="store-tax-rate-toggle",
    ),
    path("tax/calculate", views.TaxCalculateView.as_view(), name="store-tax-calculate"),
    path("tax/stats", views.TaxStatsView.as_view(), name="store-tax-stats"),
    path("tax/eu-vat-rates", views.EuVatRatesView.as_view(), name="store-tax-eu-vat-rates"),
    path("tax/countries", views.TaxCountriesView.as_view(), name="store-tax-countries"),
]
