from django.urls import path

from . import views

urlpatterns = [
    path("erp/status", views.ErpStatusView.as_view(), name="erp-status"),
    path("erp/activate", views.ErpActivateView.as_view(), name="erp-activate"),
    path("erp/deactivate", views.ErpDeactivateView.as_view(), name="erp-deactivate"),
    path("erp/users", views.ErpUserListView.as_view(), name="erp-users"),
    path("erp/users/<id:user_id>", views.ErpUserDetailView.as_view(), name="erp-user"),
    path("erp/roles", views.ErpRoleListView.as_view(), name="erp-roles"),
    path("erp/roles/<str:slug>", views.ErpRoleDetailView.as_view(), name="erp-role"),
    path(
        "erp/migrate-data/start", views.ErpMigrateDataStartView.as_view(), name="erp-migrate-start"
    ),
    path(
        "erp/migrate-data/status",
        views.ErpMigrateDataStatusView.as_view(),
        name="erp-migrate-status",
    ),
    path(
        "erp/migrate-data/cancel",
        views.ErpMigrateDataCancelView.as_view(),
        name="erp-migrate-cancel",
    ),
    path(
        "erp/migrate-data/<id:job_id>",
        views.ErpMigrateDataJobView.as_view(),
        name="erp-migrate-job",
    ),
    path(
        "erp/inventory/backfill/start",
        views.ErpBackfillStartView.as_view(),
        name="erp-backfill-start",
    ),
    path(
        "erp/inventory/backfill/status",
        views.ErpBackfillStatusView.as_view(),
        name="erp-backfill-status",
    ),
    path(
        "erp/inventory/backfill/cancel",
        views.ErpBackfillCancelView.as_view(),
        name="erp-backfill-cancel",
    ),
    path(
        "erp/onboarding/checklist",
        views.ErpOnboardingChecklistView.as_view(),
        name="erp-onboarding-checklist",
    ),
    path("erp/portal-settings", views.ErpPortalSettingsView.as_view(), name="erp-portal-settings"),
]
