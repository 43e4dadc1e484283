from django.apps import AppConfig


class StoreDocsConfig(AppConfig):
    name = "store.docs"
    label = "store_docs"
    verbose_name = "Store: API description"
