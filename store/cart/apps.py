from django.apps import AppConfig


class StoreCartConfig(AppConfig):
    name = "store.cart"
    label = "store_cart"
    verbose_name = "Store: carts"

    def ready(self) -> None:
        from store.cart import sections  # noqa: F401 - registers the `cart` settings section
