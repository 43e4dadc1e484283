from django.urls import path

from .views import (
    BlockTypesView,
    LayoutView,
    PresetsView,
    PresetView,
    PreviewView,
    RenderView,
    TemplatesView,
    TemplateView,
)

urlpatterns = [
    path("builder/layout/<id:page_id>", LayoutView.as_view(), name="theme-builder-layout"),
    path("builder/preview/<id:page_id>", PreviewView.as_view(), name="theme-builder-preview"),
    path("builder/blocks", BlockTypesView.as_view(), name="theme-builder-blocks"),
    path("builder/render", RenderView.as_view(), name="theme-builder-render"),
    path("builder/templates", TemplatesView.as_view(), name="theme-builder-templates"),
    path(
        "builder/templates/<id:template_id>",
        TemplateView.as_view(),
        name="theme-builder-template",
    ),
    path("presets", PresetsView.as_view(), name="theme-presets"),
    path("presets/<str:category>/<str:slug>", PresetView.as_view(), name="theme-preset"),
]
