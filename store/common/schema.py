"""The ec/v1 OpenAPI description: schema class of every store view and its helpers.

Every store operation gets, without repeating it per view: the store error body for the
statuses it can answer (401 and 403 everywhere, since bad credentials or a wrong nonce are
refused on any route; 400 everywhere, since any query string can be malformed; 404 where the
path names a resource; 413/415 where it takes a body; 422 where the body has shape-checked
rows; 429 everywhere, since a locked log-in refuses application passwords on any route (and
where the method is rate limited, `throttled`); for a POST, the Idempotency-Key header with its 409
and 422), the security schemes it accepts, an operation id and a tag. Views add their summary,
request, answers and parameters with `store_schema`.
"""

from __future__ import annotations

import re

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers

from common.api.fields import IntegerField, RowListSerializer
from common.api.schema import IDEMPOTENCY_KEY_PARAMETER, ApiSchemaMixin
from store.common.permissions import PUBLIC, required_access


def namespace_endpoints(endpoints, namespace: str) -> list:
    """The endpoints under /{REST_ROOT}/{namespace}/v1/, without that namespace's own docs
    routes (each namespace's description keeps to its namespace: a preprocessing hook)."""
    prefix = f"/{settings.REST_ROOT}/{namespace}/v1/"
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith(prefix) and not endpoint[0].startswith(prefix + "docs/")
    ]


def only_store_paths(endpoints):
    """The ec/v1 description covers ec/v1 only (spec: Versioning), not its own docs routes."""
    return namespace_endpoints(endpoints, settings.STORE_PREFIX)


class StoreErrorDataSerializer(serializers.Serializer):
    status = IntegerField(help_text="The HTTP status, repeated.")
    params = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        help_text="Invalid parameters only: each bad parameter and what is wrong with it.",
    )


class StoreErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable snake_case code, e.g. product_not_found.")
    message = serializers.CharField(help_text="What went wrong, for people.")
    data = StoreErrorDataSerializer()


_ERROR_TEXT = {
    400: "Invalid parameters (`invalid_param`, each named in `data.params`), a malformed body "
    "(`parse_error`) or a broken rule.",
    401: "Login needed (`not_logged_in`) or bad credentials (`invalid_app_password`).",
    403: "A capability is missing (`insufficient_capability`) or the nonce is wrong "
    "(`invalid_nonce`).",
    404: "No such resource (`<resource>_not_found`).",
    409: "Conflicts with the current state (a DELETE of what other records refer to: `in_use`).",
    413: "Body or file too large.",
    415: "Unsupported Content-Type (send application/json or multipart/form-data).",
    422: "A body value is not in its documented JSON shape (`invalid_shape`, named in "
    "`data.params`), or the Idempotency-Key was used with another request "
    "(`idempotency_key_reused`).",
    429: "Too many requests (`throttled`), or too many failed log-ins of the account or the "
    "address (`login_locked`); see Retry-After.",
}
IDEMPOTENCY_IN_USE = (
    "A request with the same Idempotency-Key is still running (`idempotency_key_in_use`; "
    "see Retry-After)."
)


def _has_shape_checked_rows(serializer) -> bool:
    if isinstance(serializer, type):
        serializer = serializer()
    if not isinstance(serializer, serializers.Serializer):
        return False
    return any(
        isinstance(field, RowListSerializer)
        or (isinstance(field, serializers.Serializer) and _has_shape_checked_rows(field))
        for field in serializer.fields.values()
    )


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class StoreAutoSchema(ApiSchemaMixin, AutoSchema):
    error_serializer = StoreErrorSerializer
    error_text = _ERROR_TEXT

    def get_operation_id(self) -> str:
        name = type(self.view).__name__
        name = name.removesuffix("View")
        return f"{_snake(name)}_{self.method.lower()}"

    def get_tags(self) -> list[str]:
        tag = getattr(self.view, "openapi_tag", None)
        return [tag] if tag else super().get_tags()

    def _idempotent(self) -> bool:
        return self.method == "POST" and getattr(self.view, "idempotent", False)

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        if self._idempotent():
            parameters = [*parameters, IDEMPOTENCY_KEY_PARAMETER]
        return parameters

    def get_auth(self):
        auths = super().get_auth()
        if required_access(self.view, self.method) == PUBLIC:
            auths.append({})
        return auths

    def implicit_error_statuses(self) -> set[int]:
        """Also 401, 403 and 429 everywhere (bad credentials or a wrong nonce are refused on any
        route, and a locked log-in, `login_locked`, refuses application passwords on any
        route), 422 where the body has rows whose shape is checked (RowListSerializer), and 422
        for a POST that takes an Idempotency-Key."""
        statuses = super().implicit_error_statuses() | {401, 403, 429}
        if self.method == "DELETE":  # other records may still refer to it (409 `in_use`)
            statuses.add(409)
        if self.has_request_body() and _has_shape_checked_rows(self.get_request_serializer()):
            statuses.add(422)
        if self._idempotent():
            statuses.add(422)
        return statuses

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response" or not self._idempotent():
            return responses
        if "409" in responses:
            described = responses["409"]["description"].rstrip()
            responses["409"]["description"] = f"{described} {IDEMPOTENCY_IN_USE}"
        else:
            responses["409"] = self._get_response_for_code(
                OpenApiResponse(StoreErrorSerializer, description=IDEMPOTENCY_IN_USE), "409"
            )
        return dict(sorted(responses.items()))


_UNSET = object()


def store_schema(
    *,
    summary: str,
    responses: dict,
    request=_UNSET,
    parameters: list | None = None,
    description: str | None = None,
    errors: dict[int, str] | None = None,
):
    """extend_schema for a store operation; the common errors are added by StoreAutoSchema.

    `errors` documents statuses beyond those ({409: "..."}), with the store error body.
    `request=None` declares an operation without a body (e.g. an action POST).
    """
    all_responses = dict(responses)
    for status, text in (errors or {}).items():
        all_responses[status] = OpenApiResponse(StoreErrorSerializer, description=text)
    kwargs = {"summary": summary, "responses": all_responses}
    if request is not _UNSET:
        kwargs["request"] = request
    if parameters:
        kwargs["parameters"] = parameters
    if description:
        kwargs["description"] = description
    return extend_schema(**kwargs)


class SessionNonceScheme(OpenApiAuthenticationExtension):
    target_class = "store.common.authentication.StoreSessionAuthentication"
    name = ["sessionCookie", "restNonce"]

    def get_security_requirement(self, auto_schema):
        return {"sessionCookie": [], "restNonce": []}

    def get_security_definition(self, auto_schema):
        return [
            {
                "type": "apiKey",
                "in": "cookie",
                "name": settings.SESSION_COOKIE_NAME,
                "description": "The logged-in session cookie; valid only with the nonce header.",
            },
            {
                "type": "apiKey",
                "in": "header",
                "name": settings.NONCE_HEADER,
                "description": "The REST nonce of the session (GET /auth/nonce).",
            },
        ]


class SessionCookieScheme(OpenApiAuthenticationExtension):
    target_class = "store.common.authentication.SessionCookieAuthentication"
    name = "sessionCookieAlone"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": "The session cookie without a nonce: only GET /auth/nonce, which "
            "hands the nonce out.",
        }
