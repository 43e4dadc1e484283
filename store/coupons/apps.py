from django.apps import AppConfig


class StoreCouponsConfig(AppConfig):
    name = "store.coupons"
    label = "store_coupons"
    verbose_name = "Store: coupons"

    def ready(self) -> None:
        from store.coupons import selectors

        selectors.connect_invalidation()
