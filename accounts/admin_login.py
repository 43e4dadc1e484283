"""The admin's log-in page behind the log-in limits shared with the portal and the checkout.

`AdminLoginForm` checks the password through accounts.services.authenticate_limited (the same
count per e-mail address and per client address); `admin_login` is the admin site's log-in view
that answers a locked log-in with 429 and Retry-After, the form showing why.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.views.decorators.debug import sensitive_variables

from accounts import services


class AdminLoginForm(AdminAuthenticationForm):
    retry_after: int | None = None

    @sensitive_variables()
    def clean(self):
        email = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if email is not None and password:
            try:
                self.user_cache = services.authenticate_limited(
                    self.request, email=email, password=password
                )
            except services.LoginLocked as exc:
                self.retry_after = exc.retry_after
                raise ValidationError(exc.detail, code=exc.code) from None
            if self.user_cache is None:
                raise self.get_invalid_login_error()
            self.confirm_login_allowed(self.user_cache)
        return self.cleaned_data


def admin_login(request, extra_context=None):
    """admin.site.login, with 429 and Retry-After while the log-in is locked."""
    response = admin.site.login(request, extra_context)
    form = (getattr(response, "context_data", None) or {}).get("form")
    retry_after = getattr(form, "retry_after", None)
    if retry_after:
        response.status_code = 429
        response["Retry-After"] = str(retry_after)
    return response
