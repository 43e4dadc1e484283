from django.apps import AppConfig


class StoreOrdersConfig(AppConfig):
    name = "store.orders"
    label = "store_orders"
    verbose_name = "Store: orders"
