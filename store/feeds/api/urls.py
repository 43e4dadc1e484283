"""Mounted under /{REST_ROOT}/ec/v1/ (store/urls.py)."""

from django.urls import path

from . import views

urlpatterns = [
    path("marketplace/feeds", views.FeedListView.as_view(), name="store-feeds"),
    path("marketplace/feeds/<str:marketplace>", views.FeedDetailView.as_view(), name="store-feed"),
    path(
        "marketplace/feeds/<str:marketplace>/generate",
        views.FeedGenerateView.as_view(),
        name="store-feed-generate",
    ),
    path(
        "marketplace/feeds/<str:marketplace>/rotate-token",
        views.FeedRotateTokenView.as_view(),
        name="store-feed-rotate-token",
    ),
    path(
        "marketplace/feeds/<str:marketplace>/skipped",
        views.FeedSkippedView.as_view(),
        name="store-feed-skipped",
    ),
    path(
        "marketplace/feeds/<str:marketplace>/feed.xml",
        views.FeedFileView.as_view(),
        name="store-feed-xml",
    ),
    path(
        "marketplace/feeds/<str:marketplace>/feed.xml.gz",
        views.FeedGzipView.as_view(),
        name="store-feed-xml-gz",
    ),
    path(
        "marketplace/categories/mapping/<str:marketplace>",
        views.CategoryMappingView.as_view(),
        name="store-feed-category-mapping",
    ),
]
