from django.apps import AppConfig


class StorePaymentsConfig(AppConfig):
    name = "store.payments"
    label = "store_payments"
    verbose_name = "Store: payments"

    def ready(self) -> None:
        from store.payments import sections  # noqa: F401 - registers the `payments` section
