from django.apps import AppConfig


class StoreReportsConfig(AppConfig):
    """The dashboard: figures read from the orders, customers and catalog (no models)."""

    name = "store.reports"
    label = "store_reports"
    verbose_name = "Store: reports"
