"""The ERP kernel's reads."""

from erp.core.selectors.access import (
    erp_role_get,
    erp_role_list,
    erp_user_get,
    erp_user_list,
    role_erp_capabilities,
    user_erp_capabilities,
    user_erp_roles,
    user_is_administrator,
)
from erp.core.selectors.jobs import job_get, job_latest
from erp.core.selectors.onboarding import onboarding_checklist
from erp.core.selectors.portal import portal_settings
from erp.core.selectors.status import erp_status

__all__ = [
    "erp_role_get",
    "erp_role_list",
    "erp_status",
    "erp_user_get",
    "erp_user_list",
    "job_get",
    "job_latest",
    "onboarding_checklist",
    "portal_settings",
    "role_erp_capabilities",
    "user_erp_capabilities",
    "user_erp_roles",
    "user_is_administrator",
]
