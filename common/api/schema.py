"""OpenAPI helpers: every portal operation declares its request, its answer and its errors."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers

from common.api.examples import examples_for
from common.api.fields import BIGINT_MAX


def only_portal_paths(endpoints):
    """The /api/v1 description covers the portal and the public licence API, not itself."""
    skip = ("/api/v1/schema", "/api/v1/docs")
    return [
        endpoint
        for endpoint in endpoints
        if endpoint[0].startswith("/api/v1/") and not endpoint[0].startswith(skip)
    ]


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="What went wrong, for people.")
    code = serializers.CharField(help_text="Stable machine-readable error code.")
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        required=False,
        help_text="Invalid input only: the messages of each invalid field.",
    )


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


_ERROR_TEXT = {
    400: "Malformed request (body, or a query parameter holding a NUL character) or a broken "
    "business rule.",
    401: "Missing, invalid or expired credentials.",
    403: "The account's role may not do this.",
    404: "No such resource (or not one of the caller's).",
    409: "A request with the same Idempotency-Key is still running.",
    413: "Request body too large.",
    415: "Unsupported Content-Type.",
    422: "Invalid field values; `errors` names each field.",
    429: "Rate limit exceeded; see Retry-After.",
}

IDEMPOTENCY_KEY_PARAMETER = OpenApiParameter(
    name="Idempotency-Key",
    type=str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="Run this POST at most once: a repeat with the same key and body within 24 "
    "hours gets the stored answer; the same key with another body is refused with 422.",
)


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    return {
        status: OpenApiResponse(ErrorSerializer, description=_ERROR_TEXT[status])
        for status in sorted(set(statuses))
    }


class ApiSchemaMixin:
    """What every operation of an API namespace shares, whatever its view says (an AutoSchema
    mix-in): the errors it can answer, and the range of its path ids.

    Any request can carry a malformed query string (400); a path with parameters can name
    nothing (404: an unknown id, or one no route accepts); a body can be too large (413) or of
    an unsupported type (415). A namespace adds its own (`implicit_error_statuses`). Integer
    path parameters are `<id:...>` ids (common.api.fields.IdPathConverter): 1 to the bigint
    maximum, also where a view declares the parameter itself.
    """

    error_serializer: type[serializers.Serializer]
    error_text: dict[int, str]

    def has_request_body(self) -> bool:
        return self.method in ("POST", "PUT", "PATCH") and bool(self.get_request_serializer())

    def implicit_error_statuses(self) -> set[int]:
        statuses = {400}
        if "{" in self.path:
            statuses.add(404)
        if self.has_request_body():
            statuses |= {413, 415}
        return statuses

    def _get_parameters(self):
        parameters = super()._get_parameters()
        for parameter in parameters:
            schema = parameter.get("schema", {})
            if parameter.get("in") == "path" and schema.get("type") == "integer":
                schema.setdefault("minimum", 1)
                schema.setdefault("maximum", BIGINT_MAX)
        return parameters

    def _get_examples(self, serializer, direction, media_type, status_code=None, extras=None):
        """The view's own examples, and the recorded exchange's (common.api.examples)."""
        examples = super()._get_examples(serializer, direction, media_type, status_code, extras)
        recorded = examples_for(self.get_operation_id(), direction, media_type, status_code)
        return {**recorded, **examples}

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for status in sorted(self.implicit_error_statuses()):
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(
                    OpenApiResponse(self.error_serializer, description=self.error_text[status]),
                    str(status),
                )
        return dict(sorted(responses.items()))


class PortalAutoSchema(ApiSchemaMixin, AutoSchema):
    """The portal's schema class: a body can also be invalid (422); a POST that takes an
    Idempotency-Key can meet its key in use (409) or reused for another request (422)."""

    error_serializer = ErrorSerializer
    error_text = _ERROR_TEXT

    def implicit_error_statuses(self) -> set[int]:
        statuses = super().implicit_error_statuses()
        if self.has_request_body():
            statuses.add(422)
        if any(p.get("name") == IDEMPOTENCY_KEY_PARAMETER.name for p in self._get_parameters()):
            statuses |= {409, 422}
        return statuses


def portal_schema(
    *,
    summary: str,
    responses: dict,
    request=None,
    errors: tuple[int, ...] = (),
    authenticated: bool = True,
    throttled: bool = False,
    method: str | None = None,
    description: str | None = None,
    parameters: list | None = None,
    tags: list[str] | None = None,
    operation_id: str | None = None,
):
    """extend_schema with the errors every portal operation can answer added for it."""
    statuses = set(errors)
    if authenticated:
        statuses.add(401)
    if throttled:
        statuses.add(429)
    if request is not None:
        statuses |= {400, 415, 422}
    if method == "POST" or (request is not None and method is None):
        parameters = [*(parameters or []), IDEMPOTENCY_KEY_PARAMETER]
    all_responses = {**error_responses(*statuses), **responses}
    kwargs = {
        "summary": summary,
        "responses": all_responses,
        "description": description,
        "parameters": parameters,
        "tags": tags,
        "operation_id": operation_id,
        "methods": [method] if method else None,
    }
    if request is not None:
        kwargs["request"] = request
    if not authenticated:
        kwargs["auth"] = []
    return extend_schema(**{k: v for k, v in kwargs.items() if v is not None})


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "Access token from POST /api/v1/portal/auth/login (30 minutes).",
        }


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "apiKeyAuth"

    def get_security_requirement(self, auto_schema):
        view = auto_schema.view
        method = auto_schema.method
        action = getattr(view, "action", None)
        if method in getattr(view, "api_key_methods", ()) or action in getattr(
            view, "api_key_actions", ()
        ):
            return {self.name: []}
        return None

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "Reseller and agency accounts; accepted only on the endpoints of "
            "the spec's API-key table.",
        }


class AppPasswordScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.AppPasswordAuthentication"
    name = "appPasswordAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "basic"}


RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": "Requests allowed in the current window of this route's limit.",
    "RateLimit-Remaining": "Requests left in the current window.",
    "RateLimit-Reset": "Seconds until the current window closes.",
}


def rate_limit_headers(result, generator, request, public):
    """A postprocessing hook of both descriptions: every rate-limited operation (one that
    documents 429) declares the IETF draft's RateLimit-* headers on its answers, and Retry-After
    on its 429 (common.api.throttling, common.middleware.RateLimitHeadersMiddleware)."""
    integer = {"type": "integer", "minimum": 0}
    limit_headers = {
        name: {"description": text, "schema": integer} for name, text in RATE_LIMIT_HEADERS.items()
    }
    limit_headers["RateLimit-Policy"] = {
        "description": "The limit and its window: `<limit>;w=<seconds>`.",
        "schema": {"type": "string"},
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses") if isinstance(operation, dict) else None
            if not responses or "429" not in responses:
                continue
            for status, response in responses.items():
                if status in ("401", "403") or "$ref" in response:
                    continue
                headers = response.setdefault("headers", {})
                for name, header in limit_headers.items():
                    headers.setdefault(name, header)
                if status == "429":
                    headers.setdefault(
                        "Retry-After",
                        {
                            "description": "Seconds to wait before trying again.",
                            "schema": {"type": "integer", "minimum": 1},
                        },
                    )
    return result
