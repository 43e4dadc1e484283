from django.apps import AppConfig


class StoreMediaConfig(AppConfig):
    name = "store.media"
    label = "store_media"
    verbose_name = "Store: media"
