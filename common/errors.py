"""Domain errors.

Services raise these with a stable machine-readable `code`; the error style of the namespace
that served the request (see common.api.errors) renders them. Nothing here knows about HTTP
bodies, so the same service can answer the portal and the store.
"""

from __future__ import annotations


class ServiceError(Exception):
    """A refusal by a business rule. Nothing was changed."""

    status_code = 400
    default_code = "invalid_request"

    def __init__(
        self,
        detail: str,
        *,
        code: str | None = None,
        status_code: int | None = None,
        errors: dict[str, list[str]] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code or self.default_code
        if status_code is not None:
            self.status_code = status_code
        self.errors = errors
        self.headers = headers or {}


class ValidationFailed(ServiceError):
    """Field values are invalid. `errors` maps each field to its messages."""

    status_code = 422
    default_code = "invalid"

    def __init__(self, errors: dict[str, list[str]], detail: str | None = None, **kwargs) -> None:
        super().__init__(detail or summarise_errors(errors), errors=errors, **kwargs)


class NotFound(ServiceError):
    status_code = 404
    default_code = "not_found"


class Forbidden(ServiceError):
    status_code = 403
    default_code = "permission_denied"


class Unauthorized(ServiceError):
    status_code = 401
    default_code = "not_authenticated"


class Conflict(ServiceError):
    status_code = 409
    default_code = "conflict"


def summarise_errors(errors: dict[str, list[str]]) -> str:
    """One line naming each invalid field and its first message."""
    parts = []
    for field, messages in errors.items():
        first = messages[0] if messages else "invalid"
        parts.append(first if field == "non_field_errors" else f"{field}: {first}")
    return "Invalid input: " + "; ".join(parts) if parts else "Invalid input."
