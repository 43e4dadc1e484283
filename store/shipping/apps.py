from django.apps import AppConfig


class StoreShippingConfig(AppConfig):
    name = "store.shipping"
    label = "store_shipping"
    verbose_name = "Store: shipping"
