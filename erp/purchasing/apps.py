from django.apps import AppConfig


class ErpPurchasingConfig(AppConfig):
    """Purchasing: suppliers and their prices, purchase orders (draft, sent, received in parts,
    cancelled), goods-received notes posted into the store's stock ledger at cost, and the
    auto-reorder of what fell to its reorder point."""

    name = "erp.purchasing"
    label = "erp_purchasing"
    verbose_name = "ERP: purchasing"
