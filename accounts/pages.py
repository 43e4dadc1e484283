"""The pages the account e-mails link to (`FRONTEND_URL/verify-email?token=`,
`/reset-password?token=`), so that the default install's links work without a front end.

They call the same services as `POST /api/v1/portal/auth/verify-email` and `/reset-password`,
under the same rate limits. Verifying takes a press of a button (a POST): mail scanners that
open links must not spend the token.
"""

from __future__ import annotations

from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.debug import sensitive_post_parameters

from accounts import services
from accounts.forms import ResetPasswordForm, TokenForm
from common.errors import ServiceError, ValidationFailed
from common.pages import page, too_many, wait_for

LINK_INCOMPLETE = (
    "This link has no token. Open the link from the e-mail as it is, or ask for a new one."
)


class _TokenPage(View):
    """GET shows the form for the link's token; POST checks the rate limit, then `perform`."""

    template_name: str
    form_class: type[TokenForm]
    throttle_scope: str

    def show(self, context: dict, *, status: int = 200):
        return page(self.request, self.template_name, context, status=status)

    def refuse(self, context: dict, message: str, status: int):
        return self.show({**context, "error": message}, status=status)

    def check(self, token: str) -> dict:
        """Extra context for a link's token; raises ServiceError when it cannot work."""
        return {}

    def perform(self, form) -> dict:
        """Call the service with the valid form; answers the context of the done page."""
        raise NotImplementedError

    def get(self, request):
        token = request.GET.get("token", "")
        context = {"form": self.form_class(initial={"token": token})}
        if not token:
            return self.refuse(context, LINK_INCOMPLETE, 400)
        try:
            context |= self.check(token)
        except ServiceError as exc:
            return self.refuse(context, exc.detail, exc.status_code)
        return self.show(context)

    def post(self, request):
        form = self.form_class(request.POST)
        context = {"form": form}
        wait = wait_for(request, self.throttle_scope)
        if wait:
            return too_many(request, self.template_name, context, wait)
        if not form.is_valid():
            if "token" in form.errors:
                return self.refuse(context, LINK_INCOMPLETE, 400)
            return self.show(context, status=422)
        try:
            done = self.perform(form)
        except ValidationFailed as exc:
            for field, messages in (exc.errors or {"password": [exc.detail]}).items():
                for message in messages:
                    form.add_error(field if field in form.fields else None, message)
            return self.show(context, status=422)
        except ServiceError as exc:
            return self.refuse(context, exc.detail, exc.status_code)
        return self.show({"done": True, **done})


class VerifyEmailPage(_TokenPage):
    template_name = "accounts/verify_email.html"
    form_class = TokenForm
    throttle_scope = "verify_email"

    def perform(self, form) -> dict:
        return {"user": services.email_verify(token=form.cleaned_data["token"])}


@method_decorator(sensitive_post_parameters("password", "password_again"), name="post")
class ResetPasswordPage(_TokenPage):
    template_name = "accounts/reset_password.html"
    form_class = ResetPasswordForm
    throttle_scope = "reset_password"

    def check(self, token: str) -> dict:
        return {"user": services.password_reset_check(token=token)}

    def perform(self, form) -> dict:
        services.password_reset(
            token=form.cleaned_data["token"], password=form.cleaned_data["password"]
        )
        return {}
