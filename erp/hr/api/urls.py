from django.urls import path

from . import views

urlpatterns = [
    path("departments", views.DepartmentListView.as_view(), name="erp-hr-departments"),
    path(
        "departments/<id:department_id>",
        views.DepartmentDetailView.as_view(),
        name="erp-hr-department",
    ),
    path("employees", views.EmployeeListView.as_view(), name="erp-hr-employees"),
    path("employees/<id:employee_id>", views.EmployeeDetailView.as_view(), name="erp-hr-employee"),
    path(
        "employees/<id:employee_id>/leave-balances",
        views.EmployeeLeaveBalancesView.as_view(),
        name="erp-hr-employee-leave-balances",
    ),
    path("leave-types", views.LeaveTypeListView.as_view(), name="erp-hr-leave-types"),
    path(
        "leave-types/<id:leave_type_id>",
        views.LeaveTypeDetailView.as_view(),
        name="erp-hr-leave-type",
    ),
    path("leave-requests", views.LeaveRequestListView.as_view(), name="erp-hr-leave-requests"),
    path(
        "leave-requests/<id:request_id>",
        views.LeaveRequestDetailView.as_view(),
        name="erp-hr-leave-request",
    ),
    path(
        "leave-requests/<id:request_id>/approve",
        views.LeaveRequestApproveView.as_view(),
        name="erp-hr-leave-request-approve",
    ),
    path(
        "leave-requests/<id:request_id>/reject",
        views.LeaveRequestRejectView.as_view(),
        name="erp-hr-leave-request-reject",
    ),
    path(
        "leave-requests/<id:request_id>/cancel",
        views.LeaveRequestCancelView.as_view(),
        name="erp-hr-leave-request-cancel",
    ),
    path("time-entries", views.TimeEntryListView.as_view(), name="erp-hr-time-entries"),
    path(
        "time-entries/<id:entry_id>", views.TimeEntryDetailView.as_view(), name="erp-hr-time-entry"
    ),
    path(
        "employee-documents",
        views.EmployeeDocumentListView.as_view(),
        name="erp-hr-employee-documents",
    ),
    path(
        "employee-documents/<id:document_id>",
        views.EmployeeDocumentDetailView.as_view(),
        name="erp-hr-employee-document",
    ),
    path(
        "employee-documents/<id:document_id>/download",
        views.EmployeeDocumentDownloadView.as_view(),
        name="erp-hr-employee-document-download",
    ),
    path("hr/dashboard", views.DashboardView.as_view(), name="erp-hr-dashboard"),
    path("hr/who-is-out", views.WhoIsOutView.as_view(), name="erp-hr-who-is-out"),
    path("hr/me", views.MeProfileView.as_view(), name="erp-hr-me"),
    path("hr/me/leave", views.MeLeaveView.as_view(), name="erp-hr-me-leave"),
    path("hr/me/time-entries", views.MeTimeEntriesView.as_view(), name="erp-hr-me-time-entries"),
    path("hr/me/documents", views.MeDocumentsView.as_view(), name="erp-hr-me-documents"),
    path(
        "hr/me/documents/<id:document_id>/download",
        views.MeDocumentDownloadView.as_view(),
        name="erp-hr-me-document-download",
    ),
    path(
        "labor-registry/settings",
        views.RegistrySettingsView.as_view(),
        name="erp-hr-labor-registry-settings",
    ),
    path(
        "labor-registry/test-connection",
        views.RegistryTestView.as_view(),
        name="erp-hr-labor-registry-test",
    ),
    path(
        "labor-registry/submissions",
        views.SubmissionListView.as_view(),
        name="erp-hr-labor-registry-submissions",
    ),
    path(
        "labor-registry/submissions/<id:submission_id>",
        views.SubmissionDetailView.as_view(),
        name="erp-hr-labor-registry-submission",
    ),
    path(
        "labor-registry/submissions/<id:submission_id>/retry",
        views.SubmissionRetryView.as_view(),
        name="erp-hr-labor-registry-submission-retry",
    ),
]
