from django.apps import AppConfig


class StoreMarketplaceConfig(AppConfig):
    """Marketplace sync: the marketplaces' signed inbound notifications,
    their imported orders (store orders with stock effects; acknowledge, ship) and the
    per-marketplace settings."""

    name = "store.marketplace"
    label = "store_marketplace"
    verbose_name = "Store: marketplaces"
