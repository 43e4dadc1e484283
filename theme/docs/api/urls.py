from django.urls import path

from store.docs.schema import THEME
from store.docs.views import DescriptionView

urlpatterns = [
    path("docs/openapi.json", DescriptionView.as_view(document=THEME), name="theme-openapi"),
]
