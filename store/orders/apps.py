from django.apps import AppConfig


class StoreOrdersConfig(AppConfig):
    name = "store.orders"
    label = "store_orders"
    verbose_name = "Store: orders"

    def ready(self) -> None:
        from store.orders import selectors

        selectors.connect_invalidation()
