from django.urls import path

from . import views

urlpatterns = [
    path("contacts", views.ContactListView.as_view(), name="erp-contacts"),
    path(
        "contacts/import-customers",
        views.ContactImportCustomersView.as_view(),
        name="erp-contacts-import-customers",
    ),
    path("contacts/<id:contact_id>", views.ContactDetailView.as_view(), name="erp-contact"),
    path("leads", views.LeadListView.as_view(), name="erp-leads"),
    path("leads/pipeline", views.LeadPipelineView.as_view(), name="erp-leads-pipeline"),
    path("leads/<id:lead_id>", views.LeadDetailView.as_view(), name="erp-lead"),
    path(
        "leads/<id:lead_id>/move-stage",
        views.LeadMoveStageView.as_view(),
        name="erp-lead-move-stage",
    ),
    path("leads/<id:lead_id>/convert", views.LeadConvertView.as_view(), name="erp-lead-convert"),
    path("activities", views.ActivityListView.as_view(), name="erp-activities"),
    path(
        "activities/upcoming", views.ActivityUpcomingView.as_view(), name="erp-activities-upcoming"
    ),
    path("activities/overdue", views.ActivityOverdueView.as_view(), name="erp-activities-overdue"),
    path("activities/<id:activity_id>", views.ActivityDetailView.as_view(), name="erp-activity"),
    path("crm/dashboard", views.CrmDashboardView.as_view(), name="erp-crm-dashboard"),
    path("crm/segments", views.SegmentListView.as_view(), name="erp-crm-segments"),
    path("crm/segments/<id:segment_id>", views.SegmentDetailView.as_view(), name="erp-crm-segment"),
    path(
        "crm/segments/<id:segment_id>/members",
        views.SegmentMembersView.as_view(),
        name="erp-crm-segment-members",
    ),
    path("crm/rfm", views.CrmRfmView.as_view(), name="erp-crm-rfm"),
]
