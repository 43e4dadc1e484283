from django.urls import path

from . import views

urlpatterns = [
    path("settings", views.SettingsView.as_view(), name="store-settings"),
    path(
        "settings/options/currencies",
        views.CurrencyOptionsView.as_view(),
        name="store-settings-currencies",
    ),
    path(
        "settings/options/countries",
        views.CountryOptionsView.as_view(),
        name="store-settings-countries",
    ),
    path(
        "settings/<slug:section>",
        views.SettingsSectionView.as_view(),
        name="store-settings-section",
    ),
    path(
        "settings/<slug:section>/reset",
        views.SettingsResetView.as_view(),
        name="store-settings-reset",
    ),
]
