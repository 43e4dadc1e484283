"""The couriers, by the name their routes use (/courier/{provider}/...)."""

from __future__ import annotations

from store.common.errors import not_found
from store.courier.providers.acs import ACSCourier
from store.courier.providers.base import CourierProvider
from store.courier.providers.sandbox import SandboxCourier

PROVIDERS: dict[str, type[CourierProvider]] = {
    cls.name: cls for cls in (SandboxCourier, ACSCourier)
}
# The couriers' names, as the OpenAPI's CourierProviderEnum (config/settings/api.py).
PROVIDER_NAMES = tuple(PROVIDERS)


def provider_class(name: str) -> type[CourierProvider]:
    cls = PROVIDERS.get(name)
    if cls is None:
        raise not_found("courier_provider", name)
    return cls
