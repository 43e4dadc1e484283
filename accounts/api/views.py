from django.utils.decorators import method_decorator
from django.views.decorators.cache import never_cache
from drf_spectacular.utils import OpenApiResponse, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from accounts import selectors, services
from accounts.api import serializers as s
from accounts.permissions import IsPartner
from common.api.schema import DetailSerializer, portal_schema
from common.api.views import PortalAPIView, PublicPortalAPIView, validate_input

AUTH_TAG = ["Authentication"]
KEYS_TAG = ["API keys"]
# Answers that carry a secret (tokens, a new API key) are never stored by a cache or browser.
NO_STORE = method_decorator(never_cache, name="dispatch")
SAME_ANSWER = (
    "The answer is the same whether or not an account exists for the address, so it cannot "
    "be used to discover accounts."
)


@NO_STORE
class LoginView(PublicPortalAPIView):
    throttle_scope = "login"

    @portal_schema(
        summary="Log in",
        request=s.LoginInputSerializer,
        responses={200: s.LoginOutputSerializer},
        errors=(401, 403),
        authenticated=False,
        throttled=True,
        tags=AUTH_TAG,
        description="401 for a wrong e-mail or password; 403 `email_not_verified` for an "
        "account that has not verified its e-mail address. 429 `login_locked` (with "
        "Retry-After) after too many failed log-ins for the e-mail address or from the client "
        "address, counted with the checkout's and the admin's log-ins; a success resets the "
        "address's count.",
    )
    def post(self, request):
        data = validate_input(s.LoginInputSerializer, request.data)
        result = services.login(
            email=data["email"], password=data["password"], request=request._request
        )
        return Response(s.LoginOutputSerializer(result).data)


@NO_STORE
class RefreshView(PublicPortalAPIView):
    throttle_scope = "refresh"

    @portal_schema(
        summary="Refresh the access token",
        request=s.RefreshInputSerializer,
        responses={200: s.TokenPairSerializer},
        errors=(401,),
        authenticated=False,
        throttled=True,
        tags=AUTH_TAG,
        description="Spends the refresh token and answers a new pair: using a refresh token "
        "twice answers 401.",
    )
    def post(self, request):
        data = validate_input(s.RefreshInputSerializer, request.data)
        return Response(services.token_refresh(refresh_token=data["refresh_token"]))


class LogoutView(PublicPortalAPIView):
    @portal_schema(
        summary="Log out (revoke a refresh token)",
        request=s.RefreshInputSerializer,
        responses={200: DetailSerializer},
        errors=(401,),
        authenticated=False,
        tags=AUTH_TAG,
    )
    def post(self, request):
        data = validate_input(s.RefreshInputSerializer, request.data)
        services.logout(refresh_token=data["refresh_token"])
        return Response({"detail": "Logged out."})


class MeView(PortalAPIView):
    @portal_schema(summary="The logged-in account", responses={200: s.MeSerializer}, tags=AUTH_TAG)
    def get(self, request):
        return Response(s.MeSerializer(request.user).data)


class RegisterView(PublicPortalAPIView):
    throttle_scope = "register"

    @portal_schema(
        summary="Register a developer account",
        request=s.RegisterInputSerializer,
        responses={201: s.RegisterOutputSerializer},
        authenticated=False,
        throttled=True,
        tags=AUTH_TAG,
        description="Creates an unverified developer account and e-mails a verification link. "
        "400 `email_taken` when the address has an account; 422 for a weak password.",
    )
    def post(self, request):
        data = validate_input(s.RegisterInputSerializer, request.data)
        user = services.account_register(**data)
        body = {
            "detail": "Account created. Check your e-mail for the verification link.",
            "user": user,
        }
        return Response(s.RegisterOutputSerializer(body).data, status=status.HTTP_201_CREATED)


class _TokenMailActionView(PublicPortalAPIView):
    """POST {fields} -> one service call -> 200 {"detail": done_message}."""

    input_serializer: type
    done_message: str

    def perform(self, data: dict) -> None:  # each subclass calls its service
        raise TypeError(f"{type(self).__name__} must define perform()")

    def post(self, request):
        self.perform(validate_input(self.input_serializer, request.data))
        return Response({"detail": self.done_message})


def _action_schema(summary: str, serializer, description: str | None = None):
    return extend_schema_view(
        post=portal_schema(
            summary=summary,
            request=serializer,
            responses={200: DetailSerializer},
            authenticated=False,
            throttled=True,
            tags=AUTH_TAG,
            description=description,
        )
    )


@_action_schema(
    "Verify the e-mail address",
    s.TokenInputSerializer,
    "400 `invalid_token` for an unknown, used or expired token.",
)
class VerifyEmailView(_TokenMailActionView):
    throttle_scope = "verify_email"
    input_serializer = s.TokenInputSerializer
    done_message = "E-mail address verified. You can log in now."

    def perform(self, data):
        services.email_verify(token=data["token"])


@_action_schema("Send the verification e-mail again", s.EmailInputSerializer, SAME_ANSWER)
class ResendVerificationView(_TokenMailActionView):
    throttle_scope = "resend_verification"
    input_serializer = s.EmailInputSerializer
    done_message = (
        "If an unverified account exists for this address, a new verification e-mail is on its way."
    )

    def perform(self, data):
        services.verification_resend(email=data["email"])


@_action_schema("Ask for a password-reset e-mail", s.EmailInputSerializer, SAME_ANSWER)
class ForgotPasswordView(_TokenMailActionView):
    throttle_scope = "forgot_password"
    input_serializer = s.EmailInputSerializer
    done_message = "If an account exists for this address, a password-reset e-mail is on its way."

    def perform(self, data):
        services.password_reset_request(email=data["email"])


@_action_schema(
    "Set a new password with a reset token",
    s.ResetPasswordInputSerializer,
    "Ends every session of the account. 400 `invalid_token`; 422 for a weak password (the "
    "token stays usable).",
)
class ResetPasswordView(_TokenMailActionView):
    throttle_scope = "reset_password"
    input_serializer = s.ResetPasswordInputSerializer
    done_message = "Password changed. Log in with the new password."

    def perform(self, data):
        services.password_reset(token=data["token"], password=data["password"])


@NO_STORE
class ApiKeyListView(PortalAPIView):
    permission_classes = [IsPartner]

    @portal_schema(
        summary="List API keys",
        responses={200: s.ApiKeySerializer(many=True)},
        errors=(403,),
        tags=KEYS_TAG,
    )
    def get(self, request):
        return Response(
            s.ApiKeySerializer(selectors.api_key_list(user=request.user), many=True).data
        )

    @portal_schema(
        summary="Create an API key",
        request=s.ApiKeyInputSerializer,
        responses={201: s.ApiKeyCreatedSerializer},
        errors=(403,),
        tags=KEYS_TAG,
        description="The key is in this answer only; only its hash is stored. 400 "
        "`api_key_limit_reached` past the per-account limit.",
    )
    def post(self, request):
        data = validate_input(s.ApiKeyInputSerializer, request.data)
        key, raw = services.api_key_create(user=request.user, name=data.get("name", ""))
        body = {**s.ApiKeySerializer(key).data, "key": raw}
        return Response(body, status=status.HTTP_201_CREATED)


class ApiKeyDetailView(PortalAPIView):
    permission_classes = [IsPartner]

    @portal_schema(
        summary="Delete an API key",
        responses={204: OpenApiResponse(description="Deleted; the key stops working at once.")},
        errors=(403, 404),
        tags=KEYS_TAG,
    )
    def delete(self, request, key_id: int):
        services.api_key_delete(user=request.user, key_id=key_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
