from django.urls import path

from . import views

urlpatterns = [
    path("media", views.MediaListView.as_view(), name="store-media"),
    path("media/<id:media_id>", views.MediaDetailView.as_view(), name="store-media-detail"),
]
