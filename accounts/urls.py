"""The account pages e-mails link to (server-rendered; the API is under /api/v1/portal/)."""

from django.urls import path

from accounts import pages

urlpatterns = [
    path("verify-email", pages.VerifyEmailPage.as_view(), name="verify-email-page"),
    path("reset-password", pages.ResetPasswordPage.as_view(), name="reset-password-page"),
]
