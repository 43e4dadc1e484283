from django.apps import AppConfig


class StoreReportsConfig(AppConfig):
    """The dashboard and the rollups the store's reports read (store.reports.rollups)."""

    name = "store.reports"
    label = "store_reports"
    verbose_name = "Store: reports"

    def ready(self) -> None:
        from store.reports import listeners

        listeners.connect()
