from django.apps import AppConfig


class StoreCouponsConfig(AppConfig):
    name = "store.coupons"
    label = "store_coupons"
    verbose_name = "Store: coupons"
