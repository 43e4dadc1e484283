from django.apps import AppConfig


class StoreCourierConfig(AppConfig):
    name = "store.courier"
    label = "store_courier"
    verbose_name = "Store: courier vouchers"
