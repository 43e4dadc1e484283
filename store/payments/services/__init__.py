"""Payments: every write of the app, one module per use case:

- `methods`: the methods offered (the lists, the checkout's choice) and a gateway's settings
- `configs`: the gateway configs (provider accounts) and which provider serves a gateway now
- `intents`: online payments started (intents, wallet orders, bank redirects) and recorded
- `events`: inbound events (webhooks and callbacks), and the sandbox's signed events
- `refunds`: refunds through the gateways that took the payments, with stock given back

Orders are changed only through store.orders.services (payments and refunds recorded with
`payment_create`, the order's payment status following; the order's status with
`order_status_set`, which gives stock back on `refunded`).

Callers import from the module that owns the name. The public names are also re-exported here
(`store.payments.services.refund_create`), the package's public surface; the modules of this
package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from store.payments.gateways import GATEWAYS  # read here by store.pages and store.emails
from store.payments.models import SaveCheck
from store.payments.services.configs import (
    CREDENTIAL_TEXT,
    MASK_MARK,
    config_check,
    config_create,
    config_delete,
    config_test,
    config_update,
    provider_for,
    provider_of,
    sandbox_config,
)
from store.payments.services.events import (
    EVENT_REFUSED,
    EventGatewayMismatch,
    event_receive,
    sandbox_signed_event,
)
from store.payments.services.intents import Started, payment_record, payment_start, wallet_capture
from store.payments.services.methods import (
    CartLimits,
    PricedCart,
    card_refund,
    cart_limits,
    gateway_get,
    gateway_update,
    payment_methods,
)
from store.payments.services.refunds import REFUND_RESERVATION, RefundResult, refund_create

__all__ = [
    "CREDENTIAL_TEXT",
    "EVENT_REFUSED",
    "GATEWAYS",
    "MASK_MARK",
    "REFUND_RESERVATION",
    "CartLimits",
    "EventGatewayMismatch",
    "PricedCart",
    "RefundResult",
    "SaveCheck",
    "Started",
    "card_refund",
    "cart_limits",
    "config_check",
    "config_create",
    "config_delete",
    "config_test",
    "config_update",
    "event_receive",
    "gateway_get",
    "gateway_update",
    "payment_methods",
    "payment_record",
    "payment_start",
    "provider_for",
    "provider_of",
    "refund_create",
    "sandbox_config",
    "sandbox_signed_event",
    "wallet_capture",
]
