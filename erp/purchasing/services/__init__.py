"""Purchasing's writes: suppliers, their prices, purchase orders and their life, receipts
into stock, and the auto-reorder. One module per use case:

- `suppliers`: suppliers and their prices
- `orders`: purchase order drafts
- `sending`: sending an order (its e-mail through the outbox) and cancelling one
- `receiving`: goods received into stock
- `reorder`: the auto-reorder
- `_shared`: the store's currency, an item, an order locked (private to this package)

Each public function is one transaction that validates first and changes nothing when it
refuses. A purchase order is locked (select_for_update) before anything about it is checked;
a receipt then locks products and levels through store.inventory.services.stock_receive, so
the order of locks is always: the order, products, levels.

E-mails leave through the outbox (common.outbox): `purchase_order_send` records the e-mail
(queued) and enqueues the `erp_purchasing.send_order_email` task, published after the commit;
a broker outage delays the e-mail, never the request. The task renders the PDF from the
database and sends once (a DoneMarker, written before sending).

Callers import from the module that owns the name. The public names are also re-exported here
(`erp.purchasing.services.purchase_order_send`), the package's public surface; the modules of
this package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from erp.purchasing.services._shared import COST, store_currency
from erp.purchasing.services.orders import (
    MAX_LINES,
    ORDER_FIELDS,
    purchase_order_create,
    purchase_order_delete,
    purchase_order_update,
)
from erp.purchasing.services.receiving import REFERENCE_TYPE, purchase_order_receive
from erp.purchasing.services.reorder import (
    AUTO_REORDER,
    purchase_orders_auto_reorder,
    reorder_quantity,
)
from erp.purchasing.services.sending import (
    SEND_TASK,
    TRANSIENT,
    purchase_order_cancel,
    purchase_order_email_deliver,
    purchase_order_send,
)
from erp.purchasing.services.suppliers import (
    PRICE_FIELDS,
    SUPPLIER_FIELDS,
    supplier_check,
    supplier_create,
    supplier_delete,
    supplier_price_check,
    supplier_price_create,
    supplier_price_delete,
    supplier_price_update,
    supplier_update,
    vat_number_clean,
)

__all__ = [
    "AUTO_REORDER",
    "COST",
    "MAX_LINES",
    "ORDER_FIELDS",
    "PRICE_FIELDS",
    "REFERENCE_TYPE",
    "SEND_TASK",
    "SUPPLIER_FIELDS",
    "TRANSIENT",
    "purchase_order_cancel",
    "purchase_order_create",
    "purchase_order_delete",
    "purchase_order_email_deliver",
    "purchase_order_receive",
    "purchase_order_send",
    "purchase_order_update",
    "purchase_orders_auto_reorder",
    "reorder_quantity",
    "store_currency",
    "supplier_check",
    "supplier_create",
    "supplier_delete",
    "supplier_price_check",
    "supplier_price_create",
    "supplier_price_delete",
    "supplier_price_update",
    "supplier_update",
    "vat_number_clean",
]
