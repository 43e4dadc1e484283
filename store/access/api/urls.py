from django.urls import path

from . import views

urlpatterns = [
    path("auth/nonce", views.NonceView.as_view(), name="store-auth-nonce"),
]
