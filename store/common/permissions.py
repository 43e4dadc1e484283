"""The capability permission every store view uses (deny by default).

A view declares what each HTTP method needs in `access`:

    access = {"GET": PUBLIC, "*": MANAGE_PRODUCTS}

`PUBLIC` is open to everyone, `LOGGED_IN` needs any logged-in account, anything else is a
capability from store.common.capabilities. A method the mapping does not name (and no "*")
needs manage_options. manage_options is accepted wherever a capability is asked for.
Missing credentials answer 401 `not_logged_in`; a missing capability 403 `insufficient_capability`.
"""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from store.common.capabilities import CODENAMES, MANAGE_OPTIONS, has_capability

PUBLIC = "public"
LOGGED_IN = "logged_in"


def required_access(view, method: str) -> str:
    if not hasattr(view, method.lower()) and method not in ("HEAD", "OPTIONS"):
        return PUBLIC  # no handler: let the view answer 405, whoever asks
    access = getattr(view, "access", None) or {}
    required = access.get(method, access.get("*", MANAGE_OPTIONS))
    if method == "HEAD" and "HEAD" not in access:
        required = access.get("GET", required)
    if method == "OPTIONS" and "OPTIONS" not in access:
        required = PUBLIC
    if required not in (PUBLIC, LOGGED_IN) and required not in CODENAMES:
        raise ValueError(f"{type(view).__name__}.access names an unknown capability {required!r}")
    return required


def ensure_logged_in(request) -> None:
    if not (request.user and request.user.is_authenticated):
        raise exceptions.NotAuthenticated(
            "You must be logged in: send the session cookie with the X-Platform-Nonce header, "
            "or an application password over HTTP Basic.",
            code="not_logged_in",
        )


def ensure_capability(request, capability: str) -> None:
    """401 when nobody is logged in, 403 when the account lacks `capability`."""
    ensure_logged_in(request)
    if not has_capability(request.user, capability):
        raise exceptions.PermissionDenied(
            f"Your account lacks the capability this requires ({capability}"
            + (" or manage_options)." if capability != MANAGE_OPTIONS else ")."),
            code="insufficient_capability",
        )


class StoreAccess(BasePermission):
    def has_permission(self, request, view) -> bool:
        required = required_access(view, request.method)
        if required == PUBLIC:
            return True
        if required == LOGGED_IN:
            ensure_logged_in(request)
            return True
        ensure_capability(request, required)
        return True


def can(request, capability: str) -> bool:
    """Whether the caller holds `capability` (for views that show managers more)."""
    return has_capability(getattr(request, "user", None), capability)
