from django.urls import path

from .views import RecentlyViewedView

urlpatterns = [
    path("recently-viewed", RecentlyViewedView.as_view(), name="theme-recently-viewed"),
]
