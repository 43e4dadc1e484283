"""The public licence API, mounted under /api/v1/."""

from django.urls import path

from licensing.api import public_views as views

urlpatterns = [
    path("licenses/activate", views.ActivateView.as_view(), name="license-activate"),
    path("licenses/deactivate", views.DeactivateView.as_view(), name="license-deactivate"),
    path("licenses/verify", views.VerifyView.as_view(), name="license-verify"),
    path("licenses/public-key", views.PublicKeyView.as_view(), name="license-public-key"),
    path("updates/check", views.UpdateCheckView.as_view(), name="update-check"),
    path("updates/info", views.UpdateInfoView.as_view(), name="update-info"),
    path("updates/download", views.UpdateDownloadView.as_view(), name="update-download"),
    path("downloads/<str:token>", views.DownloadFileView.as_view(), name="license-download-file"),
    path("components/list", views.ComponentListView.as_view(), name="component-list"),
    path(
        "components/available",
        views.ComponentAvailableView.as_view(),
        name="component-available",
    ),
    path("components/check", views.ComponentCheckView.as_view(), name="component-check"),
    path("components/download", views.ComponentDownloadView.as_view(), name="component-download"),
]
