"""The modules' view kernel, on the store's (store.common.views): store authentication and
errors, `access` per method, Idempotency-Key on POSTs, JSON only. Every module's views build on
ModuleView or ModuleSessionView (spec: Theme namespace, "only when the module is active").

Each view names its `module`; while that module is off (settings.THEME_MODULES) every method
answers 404 `no_route`, exactly as a path that does not exist, before authentication. Lists
answer the store's named page (store.common.pagination.named_page)."""

from __future__ import annotations

from common.errors import NotFound
from store.common.money import money_str
from store.common.schema import StoreAutoSchema
from store.common.views import CartSessionView, StoreAPIView
from theme.modules import selectors

TAG = "Theme modules"
OFF = "The module is off (settings.THEME_MODULES): `no_route`, as an unknown path."


class ModuleSchema(StoreAutoSchema):
    def implicit_error_statuses(self) -> set[int]:
        return super().implicit_error_statuses() | {404}


class ModuleGate:
    """404 `no_route` on every method while `module` is off (before anything else)."""

    module: str = ""
    openapi_tag = TAG
    schema = ModuleSchema()

    def initial(self, request, *args, **kwargs):
        if not selectors.module_active(self.module):
            raise NotFound(f"No route matches {request.method} {request.path}.", code="no_route")
        super().initial(request, *args, **kwargs)


class ModuleView(ModuleGate, StoreAPIView):
    pass


class ModuleSessionView(ModuleGate, CartSessionView):
    pass


def product_card(product) -> dict:
    """A product as every module shows it (ModuleProductCardSerializer)."""
    return {
        "id": product.pk,
        "title": product.title,
        "slug": product.slug,
        "price": money_str(product.price),
        "on_sale": product.on_sale,
        "stock_status": product.stock_status,
    }


def iso_time(value) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None
