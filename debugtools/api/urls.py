from django.urls import path

from store.docs.schema import CORE
from store.docs.views import DescriptionView

from . import views

urlpatterns = [
    path("debug/entries", views.EntriesView.as_view()),
    path("debug/stats", views.StatsView.as_view()),
    path("debug/settings", views.SettingsView.as_view()),
    path("debug/clear", views.ClearView.as_view()),
    path("debug/download", views.DownloadView.as_view()),
    path("debug/diagnostics", views.DiagnosticsView.as_view()),
    path("debug/test", views.TestEntryView.as_view()),
    path("debug/opcache-reset", views.CachesResetView.as_view()),
    path("debug/js-log", views.JsLogView.as_view()),
    # The namespace's own OpenAPI description.
    path("docs/openapi.json", DescriptionView.as_view(document=CORE), name="core-openapi"),
]
