from django.urls import path

from .views import RecoverCartView

urlpatterns = [
    path("recover-cart/<str:token>", RecoverCartView.as_view(), name="theme-recover-cart"),
]
