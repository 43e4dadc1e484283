"""The ERP kernel's writes: activation, ERP roles and users, the resumable jobs (data migration,
inventory backfill) and the portal's settings."""

from erp.core.services.access import (
    erp_role_create,
    erp_role_delete,
    erp_role_update,
    erp_roles_ensure,
    erp_user_assign,
    erp_user_remove,
    erp_user_update,
)
from erp.core.services.activation import erp_activate, erp_deactivate
from erp.core.services.jobs import (
    inventory_backfill_start,
    job_cancel,
    job_run_batch,
    job_run_inline,
    job_start,
    jobs_resume_stalled,
    migrate_data_start,
)
from erp.core.services.portal import (
    portal_settings_check,
    portal_settings_update,
)

__all__ = [
    "erp_activate",
    "erp_deactivate",
    "erp_role_create",
    "erp_role_delete",
    "erp_role_update",
    "erp_roles_ensure",
    "erp_user_assign",
    "erp_user_remove",
    "erp_user_update",
    "inventory_backfill_start",
    "job_cancel",
    "job_run_batch",
    "job_run_inline",
    "job_start",
    "jobs_resume_stalled",
    "migrate_data_start",
    "portal_settings_check",
    "portal_settings_update",
]
