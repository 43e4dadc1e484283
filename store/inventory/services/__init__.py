"""Every change of stock, in one place. One module per use case:

- `warehouses`: the default warehouse; creating, changing, activating, deleting warehouses
- `manual`: stock set by hand (the catalog's writes), a deleted item's stock written out
- `holds`: stock taken and given back by orders (or anything else with lines)
- `operations`: the warehouse's own operations: adjust, transfer, stocktake, reorder points
- `receipts`: units arriving at a cost (the ERP's purchase receipts)
- `refresh`: the products' and variants' stock fields recomputed from the levels
- `_ledger`: the locks and the postings every module writes through (private to this package)
- `_costing`: the average costs of the operations and receipts (private to this package)

Each public function runs in one transaction that locks what it changes in a fixed order —
the products concerned (by pk), then their stock levels (by pk) — so two writers never
deadlock and never both take the last unit. Each change of a level writes its StockMovement
(the ledger) and, before the transaction ends, the `stock_quantity` and `stock_status` of the
products and variants concerned are recomputed from the levels (`stock_fields_refresh`).

Callers that lock rows of their own (an order) lock them before calling in, so the order of
locks is always: the caller's row, products, levels.

Callers import from the module that owns the name. The public names are also re-exported here
(`store.inventory.services.stock_set`), the package's public surface; the modules of this
package never import from it, only from each other, so the re-export cannot make a cycle.
"""

from store.inventory.services._costing import COST_QUANTUM, StockLine, average_cost
from store.inventory.services._ledger import Reference
from store.inventory.services._ledger import _post as _post  # a test posts to the ledger directly
from store.inventory.services.holds import (
    InsufficientStock,
    Need,
    Shortage,
    held_by,
    stock_lock,
    stock_release,
    stock_take,
)
from store.inventory.services.manual import stock_discard, stock_set, stock_status_set
from store.inventory.services.operations import (
    REORDER_FIELDS,
    Count,
    Stocktake,
    Transfer,
    stock_adjust,
    stock_reorder_set,
    stock_stocktake,
    stock_transfer,
)
from store.inventory.services.receipts import Receipt, stock_add_at_cost, stock_receive
from store.inventory.services.refresh import Refreshed, stock_fields_refresh
from store.inventory.services.warehouses import (
    DEFAULT_WAREHOUSE_CODE,
    DEFAULT_WAREHOUSE_NAME,
    WAREHOUSE_FIELDS,
    default_warehouse,
    warehouse_create,
    warehouse_deactivate,
    warehouse_delete,
    warehouse_ensure_default_on_migrate,
    warehouse_set_active,
    warehouse_set_default,
    warehouse_update,
)

__all__ = [
    "COST_QUANTUM",
    "DEFAULT_WAREHOUSE_CODE",
    "DEFAULT_WAREHOUSE_NAME",
    "REORDER_FIELDS",
    "WAREHOUSE_FIELDS",
    "Count",
    "InsufficientStock",
    "Need",
    "Receipt",
    "Reference",
    "Refreshed",
    "Shortage",
    "StockLine",
    "Stocktake",
    "Transfer",
    "average_cost",
    "default_warehouse",
    "held_by",
    "stock_add_at_cost",
    "stock_adjust",
    "stock_discard",
    "stock_fields_refresh",
    "stock_lock",
    "stock_receive",
    "stock_release",
    "stock_reorder_set",
    "stock_set",
    "stock_status_set",
    "stock_stocktake",
    "stock_take",
    "stock_transfer",
    "warehouse_create",
    "warehouse_deactivate",
    "warehouse_delete",
    "warehouse_ensure_default_on_migrate",
    "warehouse_set_active",
    "warehouse_set_default",
    "warehouse_update",
]
