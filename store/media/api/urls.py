from django.urls import path

from . import views

urlpatterns = [
    path("media", views.MediaListView.as_view(), name="store-media"),
    path("media/<int:media_id>", views.MediaDetailView.as_view(), name="store-media-detail"),
]
