"""The licence, client and public licence routes are described, and the API-key scheme is
declared on exactly the eight operations of the spec's table."""

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

KEY_OPERATIONS = {
    ("get", "/api/v1/portal/licenses"),
    ("post", "/api/v1/portal/licenses"),
    ("post", "/api/v1/portal/licenses/bulk"),
    ("post", "/api/v1/portal/licenses/{license_id}/reactivate"),
    ("get", "/api/v1/portal/clients"),
    ("post", "/api/v1/portal/clients"),
    ("delete", "/api/v1/portal/clients/{client_id}"),
    ("get", "/api/v1/portal/clients/{client_id}/licenses"),
}
PUBLIC = [
    "/api/v1/licenses/activate",
    "/api/v1/licenses/deactivate",
    "/api/v1/licenses/verify",
    "/api/v1/licenses/public-key",
    "/api/v1/updates/check",
    "/api/v1/updates/info",
    "/api/v1/updates/download",
    "/api/v1/downloads/{token}",
    "/api/v1/components/list",
    "/api/v1/components/available",
    "/api/v1/components/check",
    "/api/v1/components/download",
]


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        return APIClient().get("/api/v1/schema/?format=json").json()


def test_every_route_is_described(schema):
    paths = set(schema["paths"])
    assert {
        "/api/v1/portal/licenses",
        "/api/v1/portal/licenses/usage",
        "/api/v1/portal/licenses/pack-credits",
        "/api/v1/portal/licenses/bulk",
        "/api/v1/portal/licenses/{license_id}",
        "/api/v1/portal/licenses/{license_id}/permanent",
        "/api/v1/portal/licenses/{license_id}/reactivate",
        "/api/v1/portal/licenses/bulk-revoke",
        "/api/v1/portal/licenses/bulk-delete",
        "/api/v1/portal/licenses/bulk-renew",
        "/api/v1/portal/licenses/bulk-renew/confirm",
        "/api/v1/portal/licenses/renewal-info",
        "/api/v1/portal/products",
        "/api/v1/portal/clients",
        "/api/v1/portal/clients/{client_id}",
        "/api/v1/portal/clients/{client_id}/licenses",
        *PUBLIC,
    } <= paths


def test_api_key_scheme_is_declared_exactly_on_the_key_table(schema):
    keyed = set()
    for path, item in schema["paths"].items():
        if not path.startswith(("/api/v1/portal/licenses", "/api/v1/portal/clients")):
            continue
        for method, operation in item.items():
            if {"apiKeyAuth": []} in operation.get("security", []):
                keyed.add((method, path))
    assert keyed == KEY_OPERATIONS


def test_public_operations_need_no_credentials_and_declare_429(schema):
    for path in PUBLIC:
        for method, operation in schema["paths"][path].items():
            assert operation.get("security") in (None, [], [{}]), (method, path)
            if path != "/api/v1/licenses/public-key":
                assert "429" in operation["responses"], (method, path)
