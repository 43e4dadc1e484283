from django.urls import path

from . import views

urlpatterns = [
    path("auth/nonce", views.NonceView.as_view(), name="store-auth-nonce"),
    # Managers (RBAC)
    path("managers", views.ManagerListView.as_view(), name="store-managers"),
    path("managers/roles", views.RoleListView.as_view(), name="store-manager-roles"),
    path("managers/roles/<str:slug>", views.RoleDetailView.as_view(), name="store-manager-role"),
    path(
        "managers/capabilities",
        views.CapabilityListView.as_view(),
        name="store-manager-capabilities",
    ),
    path("managers/<id:user_id>", views.ManagerDetailView.as_view(), name="store-manager"),
]
