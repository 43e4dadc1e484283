from django.urls import path

from . import views

urlpatterns = [
    path(
        "products/<id:product_id>/reviews",
        views.ProductReviewsView.as_view(),
        name="store-product-reviews",
    ),
    path(
        "products/<id:product_id>/rating",
        views.ProductRatingView.as_view(),
        name="store-product-rating",
    ),
    path("reviews", views.ReviewListView.as_view(), name="store-reviews"),
    path("reviews/<id:review_id>", views.ReviewDetailView.as_view(), name="store-review"),
    path(
        "reviews/<id:review_id>/helpful",
        views.ReviewHelpfulView.as_view(),
        name="store-review-helpful",
    ),
]
