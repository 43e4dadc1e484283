"""Mounted under /{REST_ROOT}/ec/v1/ (store/urls.py)."""

urlpatterns: list = []
