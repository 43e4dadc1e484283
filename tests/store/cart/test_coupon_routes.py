"""The shopper's coupon routes are the cart's: served by the cart app at
the same paths; the coupons app keeps only the managers' routes and does not reach into the
cart's API."""

import ast
from pathlib import Path

import pytest
from django.urls import resolve

import store.coupons.api as coupons_api
from tests.fixtures.store import API

SHOPPER = ("apply", "remove", "applied", "validate")


@pytest.mark.parametrize("route", SHOPPER)
def test_the_shoppers_coupon_routes_are_served_by_the_cart(route):
    match = resolve(f"{API}/coupons/{route}")
    assert match.func.view_class.__module__ == "store.cart.api.views.coupons"
    assert match.url_name == f"store-coupons-{route}"


def test_the_managers_coupon_routes_stay_with_the_coupons():
    for path in (f"{API}/admin/coupons", f"{API}/admin/coupons/1"):
        assert resolve(path).func.view_class.__module__ == "store.coupons.api.views"


def test_the_coupons_api_does_not_import_the_carts():
    for source in Path(coupons_api.__file__).parent.glob("*.py"):
        tree = ast.parse(source.read_text())
        imported = [
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
        ]
        assert not [name for name in imported if name.startswith("store.cart")], source.name
