"""The store's extension points (spec: Events): a small registry of filter hooks.

A hook receives a value and returns it, changed or not; callbacks run by priority (lower
first, then in registration order), each receiving the previous one's result:

    from store.common import hooks

    def add_badge(data, product):
        return {**data, "badge": "new"}

    hooks.add_filter(hooks.API_PRODUCT_RESPONSE, add_badge)

Register in an AppConfig.ready(), or list dotted paths in settings.STORE_HOOKS
(`{"ec_search_results": ["myshop.hooks.boost"]}`), loaded on first use. Only the hooks of the
spec's table exist; registering any other name is an error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.utils.module_loading import import_string

PREFIX = settings.STORE_PREFIX


@dataclass(frozen=True)
class Hook:
    name: str
    parameters: tuple[str, ...]
    purpose: str


def _hook(suffix: str, parameters: tuple[str, ...], purpose: str) -> str:
    name = f"{PREFIX}_{suffix}"
    HOOKS[name] = Hook(name, parameters, purpose)
    return name


HOOKS: dict[str, Hook] = {}
CART_ITEM_PRICE = _hook("cart_item_price", ("price", "item", "cart"), "modify an item's price")
CART_CALCULATED_TOTALS = _hook(
    "cart_calculated_totals", ("totals", "cart"), "modify final cart totals"
)
API_PRODUCT_RESPONSE = _hook(
    "api_product_response", ("data", "product"), "transform one product response"
)
API_PRODUCTS_RESPONSE = _hook(
    "api_products_response", ("data", "args", "total"), "transform the product list array"
)
PRODUCT_QUERY_ARGS = _hook("product_query_args", ("args",), "modify the product query")
PRODUCTS_PER_PAGE = _hook(
    "products_per_page", ("default",), "default page size when per_page is absent"
)
SEARCH_RESULTS = _hook("search_results", ("results", "query"), "transform /search output")

_lock = threading.Lock()
_callbacks: dict[str, list[tuple[int, int, Callable]]] = {name: [] for name in HOOKS}
_counter = 0
_settings_loaded = False


def _check(name: str) -> None:
    if name not in HOOKS:
        raise ValueError(f"Unknown store hook {name!r}; known: {', '.join(sorted(HOOKS))}")


def add_filter(name: str, callback: Callable, priority: int = 10) -> None:
    global _counter
    _check(name)
    with _lock:
        _counter += 1
        _callbacks[name].append((priority, _counter, callback))
        _callbacks[name].sort(key=lambda item: (item[0], item[1]))


def remove_filter(name: str, callback: Callable) -> bool:
    _check(name)
    with _lock:
        before = len(_callbacks[name])
        _callbacks[name] = [item for item in _callbacks[name] if item[2] is not callback]
        return len(_callbacks[name]) != before


def registration(*names: str) -> str:
    """A short stamp of the callbacks registered on hooks `names` (their registration
    numbers): it changes whenever one is added or removed. Caches of hook output (the
    catalog's product bodies) put it in their keys."""
    for name in names:
        _check(name)
    _load_settings()
    return ".".join(",".join(str(item[1]) for item in _callbacks[name]) or "-" for name in names)


def _load_settings() -> None:
    global _settings_loaded
    if _settings_loaded:
        return
    with _lock:
        if _settings_loaded:
            return
        configured = getattr(settings, "STORE_HOOKS", {}) or {}
        _settings_loaded = True
    for name, paths in configured.items():
        for path in paths:
            add_filter(name, import_string(path))


def apply_filters(name: str, value, *args):
    """Run the callbacks of hook `name` over `value`; answers the final value."""
    _check(name)
    _load_settings()
    for _priority, _order, callback in list(_callbacks[name]):
        value = callback(value, *args)
    return value


@contextmanager
def filter_added(name: str, callback: Callable, priority: int = 10) -> Iterator[Callable]:
    """Register `callback` for the duration of a block (tests, one-off jobs)."""
    add_filter(name, callback, priority)
    try:
        yield callback
    finally:
        remove_filter(name, callback)
