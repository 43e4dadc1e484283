"""Portal licence routes, mounted under /api/v1/portal/."""

from django.urls import path

from licensing.api import views

urlpatterns = [
    path("licenses", views.LicenseListView.as_view(), name="portal-licenses"),
    path("licenses/usage", views.LicenseUsageView.as_view(), name="portal-license-usage"),
    path("licenses/pack-credits", views.PackCreditsView.as_view(), name="portal-pack-credits"),
    path("licenses/bulk", views.LicenseBulkCreateView.as_view(), name="portal-licenses-bulk"),
    path(
        "licenses/bulk-revoke",
        views.LicenseBulkRevokeView.as_view(),
        name="portal-licenses-bulk-revoke",
    ),
    path(
        "licenses/bulk-delete",
        views.LicenseBulkDeleteView.as_view(),
        name="portal-licenses-bulk-delete",
    ),
    path("licenses/bulk-renew", views.BulkRenewView.as_view(), name="portal-licenses-renew"),
    path(
        "licenses/bulk-renew/confirm",
        views.BulkRenewConfirmView.as_view(),
        name="portal-licenses-renew-confirm",
    ),
    path("licenses/renewal-info", views.RenewalInfoView.as_view(), name="portal-renewal-info"),
    path("licenses/<id:license_id>", views.LicenseDetailView.as_view(), name="portal-license"),
    path(
        "licenses/<id:license_id>/permanent",
        views.LicensePermanentDeleteView.as_view(),
        name="portal-license-permanent",
    ),
    path(
        "licenses/<id:license_id>/reactivate",
        views.LicenseReactivateView.as_view(),
        name="portal-license-reactivate",
    ),
    path("products", views.ProductListView.as_view(), name="portal-products"),
]
