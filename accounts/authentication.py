"""How callers prove who they are.

- Portal: a bearer access token (JWT) everywhere; an X-API-Key only on the endpoints a view
  lists (PortalViewMixin.accepts_api_key). A key sent anywhere else is refused with a 401 that
  says a bearer token is needed.
- Store: application passwords over HTTP Basic (AppPasswordAuthentication), behind the
  log-in limits.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, BasicAuthentication
from rest_framework_simplejwt.authentication import JWTAuthentication

from accounts import services

API_KEY_HEADER = "X-API-Key"


class BearerTokenAuthentication(JWTAuthentication):
    www_authenticate_realm = "api"


def _accepts_api_key(request) -> bool:
    view = (getattr(request, "parser_context", None) or {}).get("view")
    accepts = getattr(view, "accepts_api_key", None)
    return bool(accepts and accepts(request))


class ApiKeyAuthentication(BaseAuthentication):
    """X-API-Key for reseller and agency accounts, on the endpoints that accept one."""

    def authenticate(self, request):
        raw = request.headers.get(API_KEY_HEADER)
        if raw is None:
            return None
        if not _accepts_api_key(request):
            raise exceptions.AuthenticationFailed(
                "This endpoint needs a bearer token (Authorization: Bearer <access token>); "
                "an API key is accepted only on the licence and client endpoints listed in "
                "the API-key table.",
                code="bearer_token_required",
            )
        key = services.api_key_authenticate(raw)
        if key is None:
            raise exceptions.AuthenticationFailed(
                "Invalid API key, or the account may not use API keys.", code="invalid_api_key"
            )
        return (key.user, key)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


class LoginLockedError(exceptions.APIException):
    """services.LoginLocked where credentials are read: 429 `login_locked` with Retry-After
    (`wait`). An APIException, so DRF takes the request as anonymous from then on rather than
    authenticating it again."""

    status_code = 429
    default_code = "login_locked"

    def __init__(self, locked: services.LoginLocked) -> None:
        super().__init__(locked.detail, code=locked.code)
        self.wait = locked.retry_after


class AppPasswordAuthentication(BasicAuthentication):
    """HTTP Basic with the account's e-mail and one of its application passwords.

    The account password itself is never accepted here. Wrong passwords count against the
    e-mail address and the client address as failed log-ins do, and a lock refuses them all
    (LoginLockedError): services.app_password_authenticate.
    """

    www_authenticate_realm = "store"

    def authenticate_credentials(self, userid, password, request=None):
        try:
            app_password = services.app_password_authenticate(
                request, email=userid, password=password
            )
        except services.LoginLocked as exc:
            raise LoginLockedError(exc) from None
        if app_password is None:
            raise exceptions.AuthenticationFailed(
                "Invalid e-mail or application password.", code="invalid_app_password"
            )
        return (app_password.user, app_password)
