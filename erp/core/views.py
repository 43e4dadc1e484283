"""The base view of every ERP route: the store's conventions plus the licence gate."""

from __future__ import annotations

from erp.core import gate
from store.common.views import StoreAPIView


class ERPView(StoreAPIView):
    """A store view behind the Business-tier licence gate (erp.core.gate).

    The caller's credentials and capability are checked first (401, 403
    `insufficient_capability`), then the gate (403 `erp_license_required` or
    `erp_not_active`), before any throttle, idempotency key or body is looked at.
    """

    def check_permissions(self, request) -> None:
        super().check_permissions(request)
        if request.method != "OPTIONS":
            gate.ensure_open()
