from django.apps import AppConfig


class StoreReviewsConfig(AppConfig):
    name = "store.reviews"
    label = "store_reviews"
    verbose_name = "Store: reviews"
