from django.apps import AppConfig


class StoreTaxConfig(AppConfig):
    name = "store.tax"
    label = "store_tax"
    verbose_name = "Store: tax"

    def ready(self) -> None:
        from store.tax import (
            sections,  # noqa: F401 - registers the `tax` settings section
            selectors,
        )

        selectors.connect_invalidation()
