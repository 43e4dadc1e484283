"""HR and labor-registry routes (behind the ERP's licence gate): thin views over
erp.hr.selectors, services and labor. One module per resource:

- `departments`, `employees`, `leave` (leave types and requests), `time_entries`, `documents`
- `dashboard`: the HR dashboard and who is out
- `me`: an employee's own record, leave, time and documents (/hr/me/*)
- `registry`: the labor registry's settings and submissions
- `_shared`: the base views and what the modules share (private to this package)

Access: HR routes need ec_manage_hr (or manage_options), except the reads an employee makes
of the directory and of their own and their reports' leave, the decisions on leave (the
employee's manager or HR, checked by the service) and /hr/me/* (any logged-in account with an
employee record: 404 `employee_not_found` otherwise).

The views are also re-exported here (`views.DepartmentListView`, what erp.hr.api.urls mounts);
the modules of this package never import from it, only from each other.
"""

from erp.hr.api.views._shared import DOCUMENT_ID, FILE_TYPES, TAG, HRResourceView, HRView, MeView
from erp.hr.api.views.dashboard import DashboardView, WhoIsOutView
from erp.hr.api.views.departments import DepartmentDetailView, DepartmentListView
from erp.hr.api.views.documents import (
    UPLOAD_ERRORS,
    EmployeeDocumentDetailView,
    EmployeeDocumentDownloadView,
    EmployeeDocumentListView,
    SizeCapUploadHandler,
)
from erp.hr.api.views.employees import (
    EMPLOYEE_ID,
    EmployeeDetailView,
    EmployeeLeaveBalancesView,
    EmployeeListView,
)
from erp.hr.api.views.leave import (
    APPROVER,
    LEAVE_CREATE_ERRORS,
    REQUEST_ID,
    LeaveRequestApproveView,
    LeaveRequestCancelView,
    LeaveRequestDetailView,
    LeaveRequestListView,
    LeaveRequestRejectView,
    LeaveTypeDetailView,
    LeaveTypeListView,
)
from erp.hr.api.views.me import (
    NO_EMPLOYEE,
    MeDocumentDownloadView,
    MeDocumentsView,
    MeLeaveView,
    MeProfileView,
    MeTimeEntriesView,
)
from erp.hr.api.views.registry import (
    REGISTRY_TAG,
    SUBMISSION_ID,
    RegistrySettingsView,
    RegistryTestView,
    RegistryView,
    SubmissionDetailView,
    SubmissionListView,
    SubmissionRetryView,
)
from erp.hr.api.views.time_entries import TIME_ERRORS, TimeEntryDetailView, TimeEntryListView

__all__ = [
    "APPROVER",
    "DOCUMENT_ID",
    "EMPLOYEE_ID",
    "FILE_TYPES",
    "LEAVE_CREATE_ERRORS",
    "NO_EMPLOYEE",
    "REGISTRY_TAG",
    "REQUEST_ID",
    "SUBMISSION_ID",
    "TAG",
    "TIME_ERRORS",
    "UPLOAD_ERRORS",
    "DashboardView",
    "DepartmentDetailView",
    "DepartmentListView",
    "EmployeeDetailView",
    "EmployeeDocumentDetailView",
    "EmployeeDocumentDownloadView",
    "EmployeeDocumentListView",
    "EmployeeLeaveBalancesView",
    "EmployeeListView",
    "HRResourceView",
    "HRView",
    "LeaveRequestApproveView",
    "LeaveRequestCancelView",
    "LeaveRequestDetailView",
    "LeaveRequestListView",
    "LeaveRequestRejectView",
    "LeaveTypeDetailView",
    "LeaveTypeListView",
    "MeDocumentDownloadView",
    "MeDocumentsView",
    "MeLeaveView",
    "MeProfileView",
    "MeTimeEntriesView",
    "MeView",
    "RegistrySettingsView",
    "RegistryTestView",
    "RegistryView",
    "SizeCapUploadHandler",
    "SubmissionDetailView",
    "SubmissionListView",
    "SubmissionRetryView",
    "TimeEntryDetailView",
    "TimeEntryListView",
    "WhoIsOutView",
]
