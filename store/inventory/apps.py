from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StoreInventoryConfig(AppConfig):
    name = "store.inventory"
    label = "store_inventory"
    verbose_name = "Store: inventory"

    def ready(self) -> None:
        from store.inventory.services import warehouse_ensure_default_on_migrate

        post_migrate.connect(
            warehouse_ensure_default_on_migrate,
            dispatch_uid="store.inventory.default_warehouse",
        )
