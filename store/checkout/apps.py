from django.apps import AppConfig


class StoreCheckoutConfig(AppConfig):
    name = "store.checkout"
    label = "store_checkout"
    verbose_name = "Store: checkout"

    def ready(self) -> None:
        from store.checkout import sections  # noqa: F401 - registers the `checkout` section
        from store.checkout.services import listeners

        listeners.connect()
