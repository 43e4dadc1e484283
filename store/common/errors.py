"""The store's error body and its stable error codes.

Every refusal under `/{REST_ROOT}/` answers `{"code", "message", "data": {"status"}}`; invalid
parameters answer 400 with code `invalid_param` and `data.params` naming each one
(`{"per_page": "Ensure this value is greater than or equal to 1."}`). Services raise
`common.errors.ServiceError` subclasses with one of the codes below; the foundation's exception
handler picks this style by path prefix (settings.API_ERROR_STYLES).
"""

from __future__ import annotations

from common.api.errors import ApiError, ErrorStyle
from common.errors import NotFound, ServiceError, ValidationFailed

# DRF's and the foundation's generic codes, spelled the store's way.
_RENAMED = {
    "invalid": "invalid_param",
    "required": "invalid_param",
    "not_found": "not_found",
    "no_route": "no_route",
    "permission_denied": "forbidden",
    "authentication_failed": "invalid_credentials",
}


class StoreErrorStyle(ErrorStyle):
    """`{"code", "message", "data": {"status", "params"?}}`; invalid values are 400."""

    validation_status = 400

    def body(self, error: ApiError) -> dict:
        data: dict = {"status": error.status}
        if error.errors:
            data["params"] = {name: " ".join(messages) for name, messages in error.errors.items()}
        return {
            "code": _RENAMED.get(error.code, error.code),
            "message": error.message,
            "data": data,
        }


# --- Raising helpers: one code per refusal ------------------------------------------------------


def invalid_params(errors: dict[str, list[str] | str], *, code: str = "invalid_param"):
    """400 naming each bad parameter."""
    normalised = {
        name: [messages] if isinstance(messages, str) else list(messages)
        for name, messages in errors.items()
    }
    names = ", ".join(normalised)
    first = next(iter(normalised.values()))[0] if normalised else "invalid"
    message = f"Invalid parameter(s): {names}." if len(normalised) > 1 else f"{names}: {first}"
    return ValidationFailed(normalised, detail=message, code=code)


SHAPE_CODE = "invalid_shape"


def invalid_shape(errors: dict[str, list[str]]) -> ServiceError:
    """422 `invalid_shape`: a body value is not in its documented JSON shape (each named)."""
    names = ", ".join(errors)
    first = next(iter(errors.values()))[0] if errors else "Unexpected shape."
    message = f"Unexpected shape: {names}." if len(errors) > 1 else first
    return ServiceError(message, code=SHAPE_CODE, status_code=422, errors=errors)


def not_found(resource: str, identifier=None) -> NotFound:
    """404 `<resource>_not_found`, e.g. product_not_found."""
    label = resource.replace("_", " ")
    if identifier is None:
        what = f"No such {label}."
    elif isinstance(identifier, int):
        what = f"No {label} with id {identifier}."
    else:
        what = f"No {label} {str(identifier)[:100]!r}."
    return NotFound(what, code=f"{resource}_not_found")


def locked_or_404(model, pk: int, resource: str):
    """The row `pk` of `model`, locked for this transaction (SELECT ... FOR UPDATE), or 404
    `<resource>_not_found`."""
    row = model.objects.select_for_update().filter(pk=pk).first()
    if row is None:
        raise not_found(resource, pk)
    return row


def rule_broken(message: str, *, code: str, status: int = 400) -> ServiceError:
    return ServiceError(message, code=code, status_code=status)
