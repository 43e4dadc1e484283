from django.apps import AppConfig


class StoreShippingConfig(AppConfig):
    name = "store.shipping"
    label = "store_shipping"
    verbose_name = "Store: shipping"

    def ready(self) -> None:
        from store.shipping import selectors

        selectors.connect_invalidation()
