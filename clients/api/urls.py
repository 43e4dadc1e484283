"""Sub-client routes, mounted under /api/v1/portal/."""

from django.urls import path

from clients.api import views

urlpatterns = [
    path("clients", views.ClientListView.as_view(), name="portal-clients"),
    path("clients/<id:client_id>", views.ClientDetailView.as_view(), name="portal-client"),
    path(
        "clients/<id:client_id>/licenses",
        views.ClientLicensesView.as_view(),
        name="portal-client-licenses",
    ),
]
