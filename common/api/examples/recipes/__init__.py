"""What the recorder cannot guess about an operation (common.api.examples.recorder): its
caller, path parameters, body, headers or error call, by description and operationId, one module
per description. A recipe's callables take the recorder (and the path parameters); they prepare
what the call needs through the API itself (and the management commands), so that the recorder
imports no app."""

from __future__ import annotations

from common.api.examples.recipes.portal import PORTAL_RECIPES
from common.api.examples.recipes.store import STORE_RECIPES
from common.api.examples.recipes.theme import THEME_RECIPES
from common.api.examples.recorder import Operation, Recipe

PORTAL_PUBLIC_AUTH = {
    "login",
    "register",
    "refresh",
    "forgot-password",
    "reset-password",
    "verify-email",
    "resend-verification",
}


def default_actor(op: Operation) -> str:
    """Who calls an operation unless its recipe says: the portal's reseller (the public
    licence API and log-in routes: nobody), the store's administrator, a guest with a cart
    session on the public routes, the demo customer on their own account's."""
    if op.description == "portal":
        if op.path.startswith("/api/v1/portal/auth/") and op.path.rsplit("/", 1)[-1] in (
            PORTAL_PUBLIC_AUTH
        ):
            return "anonymous"
        return "reseller" if op.path.startswith("/api/v1/portal/") else "anonymous"
    if op.path == "/account" or op.path.startswith("/account/"):
        return "customer"
    if op.public:
        return "shopper"
    return "admin"


RECIPES: dict[str, dict[str, Recipe]] = {
    "portal": PORTAL_RECIPES,
    "store": STORE_RECIPES,
    "theme": THEME_RECIPES,
    "core": {},
}
