"""Licensing use cases: every write with a rule, called by the portal and public API views, the
admin actions, the management commands and the Celery tasks alike. One module per use case:

- `licenses`: creating licences (one, bulk from pack credits, staff issue)
- `lifecycle`: tier, revoke, reactivate, delete, extend, mark invoiced, a sub-client's end
- `activation`: the public API's activate and deactivate, staff removing activations
- `renewals`: renewal orders and their payment
- `expiry`: subscriptions ending and the beat's expiry sweep
- `imports`: importing licences from another system
- `releases`: release and component uploads
- `rules`: what an account sees and may hold (also read by the selectors and serializers)
- `_shared`: helpers of the modules above (private to this package)

Each function validates first and raises a `common.errors` refusal (with a stable `code`)
before it changes anything; multi-row writes are one transaction. Licence events are published
(`common.events.publish`) inside the transaction that makes the change, so a rollback sends
nothing. Row locks are taken in primary-key order (licences, packs, orders) so that concurrent
bulk calls cannot deadlock.

Callers import from the module that owns the name. The public names are also re-exported here
(`licensing.services.license_create`), the package's public surface; the modules of this
package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from licensing.services._shared import MAX_TERM_YEARS, business_subscription_for
from licensing.services.activation import (
    ActivationResult,
    activation_delete,
    license_activate,
    license_deactivate,
    refuse_unusable,
)
from licensing.services.expiry import ExpiryResult, expire_due, subscription_expire
from licensing.services.imports import ImportRow, check_import_key, licenses_import
from licensing.services.licenses import (
    MAX_BULK_CREATE,
    BulkCreateResult,
    license_bulk_create,
    license_check_new,
    license_create,
    licenses_issue,
)
from licensing.services.lifecycle import (
    REVOCABLE,
    TierChange,
    client_licenses_end,
    license_change_tier,
    license_delete,
    license_reactivate,
    license_revoke,
    license_staff_check,
    license_staff_update,
    licenses_bulk_delete,
    licenses_bulk_revoke,
    licenses_delete,
    licenses_extend,
    licenses_mark_invoiced,
    licenses_reactivate,
    licenses_revoke,
)
from licensing.services.releases import component_save, release_save
from licensing.services.renewals import renewal_confirm, renewal_order_create
from licensing.services.rules import MAX_BULK_IDS, TIER_RANK, license_limit_for, visible_licenses

__all__ = [
    "MAX_BULK_CREATE",
    "MAX_BULK_IDS",
    "MAX_TERM_YEARS",
    "REVOCABLE",
    "TIER_RANK",
    "ActivationResult",
    "BulkCreateResult",
    "ExpiryResult",
    "ImportRow",
    "TierChange",
    "activation_delete",
    "business_subscription_for",
    "check_import_key",
    "client_licenses_end",
    "component_save",
    "expire_due",
    "license_activate",
    "license_bulk_create",
    "license_change_tier",
    "license_check_new",
    "license_create",
    "license_deactivate",
    "license_delete",
    "license_limit_for",
    "license_reactivate",
    "license_revoke",
    "license_staff_check",
    "license_staff_update",
    "licenses_bulk_delete",
    "licenses_bulk_revoke",
    "licenses_delete",
    "licenses_extend",
    "licenses_import",
    "licenses_issue",
    "licenses_mark_invoiced",
    "licenses_reactivate",
    "licenses_revoke",
    "refuse_unusable",
    "release_save",
    "renewal_confirm",
    "renewal_order_create",
    "subscription_expire",
    "visible_licenses",
]
