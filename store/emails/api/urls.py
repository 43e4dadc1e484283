from django.urls import path

from . import views

urlpatterns = [
    path("emails/templates", views.EmailTemplateListView.as_view(), name="store-email-templates"),
    path(
        "emails/templates/<slug:email_type>",
        views.EmailTemplateDetailView.as_view(),
        name="store-email-template",
    ),
    path(
        "emails/templates/<slug:email_type>/preview",
        views.EmailPreviewView.as_view(),
        name="store-email-preview",
    ),
    path("emails/test", views.EmailTestView.as_view(), name="store-email-test"),
    path("emails/resend/<id:order_id>", views.EmailResendView.as_view(), name="store-email-resend"),
    path("emails/settings", views.EmailSettingsView.as_view(), name="store-email-settings"),
]
