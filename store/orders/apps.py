from django.apps import AppConfig


class StoreOrdersConfig(AppConfig):
    name = "store.orders"
    label = "store_orders"
    verbose_name = "Store: orders"

    def ready(self) -> None:
        from store.orders import (
            sections,  # noqa: F401 - registers the `orders` section
            selectors,
        )

        selectors.connect_invalidation()
