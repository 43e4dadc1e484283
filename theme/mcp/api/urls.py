from django.urls import path

from theme.mcp.api.views import McpView

urlpatterns = [
    path("mcp", McpView.as_view(), name="theme-mcp"),
]
