from django.urls import path

from accounts.api import views

urlpatterns = [
    path("auth/login", views.LoginView.as_view(), name="portal-auth-login"),
    path("auth/refresh", views.RefreshView.as_view(), name="portal-auth-refresh"),
    path("auth/logout", views.LogoutView.as_view(), name="portal-auth-logout"),
    path("auth/me", views.MeView.as_view(), name="portal-auth-me"),
    path("auth/register", views.RegisterView.as_view(), name="portal-auth-register"),
    path("auth/verify-email", views.VerifyEmailView.as_view(), name="portal-auth-verify-email"),
    path(
        "auth/resend-verification",
        views.ResendVerificationView.as_view(),
        name="portal-auth-resend-verification",
    ),
    path(
        "auth/forgot-password",
        views.ForgotPasswordView.as_view(),
        name="portal-auth-forgot-password",
    ),
    path(
        "auth/reset-password", views.ResetPasswordView.as_view(), name="portal-auth-reset-password"
    ),
    path("api-keys", views.ApiKeyListView.as_view(), name="portal-api-keys"),
    path("api-keys/<id:key_id>", views.ApiKeyDetailView.as_view(), name="portal-api-key"),
]
