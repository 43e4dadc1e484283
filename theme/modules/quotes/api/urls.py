from django.urls import path

from .views import QuotesView

urlpatterns = [
    path("quotes", QuotesView.as_view(), name="theme-quotes"),
]
