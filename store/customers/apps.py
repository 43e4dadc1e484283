from django.apps import AppConfig


class StoreCustomersConfig(AppConfig):
    name = "store.customers"
    label = "store_customers"
    verbose_name = "Store: customers"
