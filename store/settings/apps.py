from django.apps import AppConfig


class StoreSettingsConfig(AppConfig):
    name = "store.settings"
    label = "store_settings"
    verbose_name = "Store: settings"

    def ready(self) -> None:
        from store.settings import sections  # noqa: F401 - registers the built-in sections
