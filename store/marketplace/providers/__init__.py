"""The marketplaces, by the name their routes use (/marketplace/webhook/{marketplace})."""

from __future__ import annotations

from store.common.errors import not_found
from store.marketplace.providers.base import MarketplaceProvider
from store.marketplace.providers.generic import GenericProvider
from store.marketplace.providers.skroutz import SkroutzProvider

PROVIDERS: dict[str, type[MarketplaceProvider]] = {
    cls.name: cls for cls in (SkroutzProvider, GenericProvider)
}
MARKETPLACE_NAMES = tuple(PROVIDERS)


def provider_class(name: str) -> type[MarketplaceProvider]:
    cls = PROVIDERS.get(name)
    if cls is None:
        raise not_found("marketplace", name)
    return cls
