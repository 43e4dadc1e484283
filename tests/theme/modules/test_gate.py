"""Each module's routes exist only while its module is on: off, every method answers the 404
of an unknown path (store error body, `no_route`), before authentication."""

import pytest
from django.test import Client

from tests.accounts.factories import UserFactory
from tests.fixtures.store import basic_auth, grant
from tests.theme.modules.conftest import BASE, error, modules_off

pytestmark = pytest.mark.django_db

ROUTES = {
    "recently_viewed": ["recently-viewed"],
    "bundles": ["bundles"],
    "points": ["points/balance", "points/transactions"],
    "promotions": ["promotions", "promotions/cart"],
    "quotes": ["quotes"],
    "product_names": ["products/names?ids=1"],
    "labels": ["labels/product/1"],
    "b2b": ["b2b/groups", "b2b/groups/1", "b2b/my-group"],
    "recover_cart": ["recover-cart/abc"],
}


def test_every_module_is_listed(settings):
    assert set(ROUTES) == set(settings.THEME_MODULES_ALL)


@pytest.mark.parametrize("module", sorted(ROUTES))
def test_an_off_module_answers_404_as_an_unknown_route(settings, module):
    admin = grant(UserFactory(email="gate@example.com"), "manage_options")
    callers = [
        Client(enforce_csrf_checks=True),
        Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(admin)),
    ]
    unknown = callers[0].get(f"{BASE}/no-such-route").json()
    modules_off(settings, module)
    for path in ROUTES[module]:
        for client in callers:
            for method in ("get", "post", "put", "patch", "delete"):
                if method == "get":
                    response = client.get(f"{BASE}/{path}")
                else:
                    response = getattr(client, method)(
                        f"{BASE}/{path}", "{}", content_type="application/json"
                    )
                body = error(response, 404, "no_route")
                assert body["code"] == unknown["code"]
                assert body["message"].startswith("No route matches")


@pytest.mark.parametrize("module", sorted(ROUTES))
def test_an_on_module_answers(settings, module):
    client = Client()
    for path in ROUTES[module]:
        response = client.get(f"{BASE}/{path}")
        assert response.status_code != 404 or response.json()["code"] != "no_route", path


def test_other_modules_stay_on_when_one_is_off(settings):
    modules_off(settings, "bundles")
    assert Client().get(f"{BASE}/promotions").status_code == 200
    error(Client().get(f"{BASE}/bundles"), 404, "no_route")
