from django.apps import AppConfig


class StoreCatalogConfig(AppConfig):
    name = "store.catalog"
    label = "store_catalog"
    verbose_name = "Store: catalog"

    def ready(self) -> None:
        from store.catalog import cache
        from store.catalog.services import list_entries

        cache.connect_invalidation()
        list_entries.connect()
