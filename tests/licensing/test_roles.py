"""Who may call what: anonymous, each role, API keys (on the eight endpoints of the spec's table
only), and two resellers who never see each other's data."""

import pytest
from rest_framework.test import APIClient

from accounts import services as account_services
from clients.models import Client
from licensing.models import License, LicenseStatus
from tests.accounts.factories import AgencyFactory, ResellerFactory, UserFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import LicenseFactory, PackFactory, ProductFactory
from tests.streaming import streamed_json

pytestmark = pytest.mark.django_db

P = "/api/v1/portal"

# (method, path template, body) for every licence and client endpoint.
ENDPOINTS = [
    ("get", "/licenses", None),
    ("post", "/licenses", {"product_id": "{product}"}),
    ("post", "/licenses/bulk", {"product_id": "{product}", "count": 1}),
    ("get", "/licenses/usage", None),
    ("get", "/licenses/pack-credits", None),
    ("get", "/licenses/{license}", None),
    ("patch", "/licenses/{license}", {"tier": "starter"}),
    ("delete", "/licenses/{license}", None),
    ("delete", "/licenses/{license}/permanent", None),
    ("post", "/licenses/{license}/reactivate", None),
    ("post", "/licenses/bulk-revoke", {"ids": []}),
    ("post", "/licenses/bulk-delete", {"ids": []}),
    ("post", "/licenses/bulk-renew", {"license_ids": ["{license}"]}),
    ("post", "/licenses/bulk-renew/confirm", {"transaction_id": "x", "order_code": "RN-X"}),
    ("get", "/licenses/renewal-info", None),
    ("get", "/products", None),
    ("get", "/clients", None),
    ("post", "/clients", {"email": "new@customer.example", "name": "New"}),
    ("delete", "/clients/{client}", None),
    ("get", "/clients/{client}/licenses", None),
]
KEY_ENDPOINTS = {
    ("get", "/licenses"),
    ("post", "/licenses"),
    ("post", "/licenses/bulk"),
    ("post", "/licenses/{license}/reactivate"),
    ("get", "/clients"),
    ("post", "/clients"),
    ("delete", "/clients/{client}"),
    ("get", "/clients/{client}/licenses"),
}
PARTNER_ONLY = {
    ("post", "/licenses/bulk"),
    ("get", "/clients"),
    ("post", "/clients"),
    ("delete", "/clients/{client}"),
    ("get", "/clients/{client}/licenses"),
}


def fill(value, ids):
    if isinstance(value, str):
        for name, number in ids.items():
            if value == "{" + name + "}":
                return number
            value = value.replace("{" + name + "}", str(number))
        return value
    if isinstance(value, list):
        return [fill(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: fill(item, ids) for key, item in value.items()}
    return value


def call(client, method, path, body, ids):
    url = P + fill(path, ids)
    if body is None:
        return getattr(client, method)(url)
    return getattr(client, method)(url, fill(body, ids), format="json")


def world(owner):
    customer = ClientFactory(owner=owner) if owner.is_partner else ClientFactory()
    license = LicenseFactory(owner=owner, status=LicenseStatus.REVOKED)
    return {"product": ProductFactory().pk, "license": license.pk, "client": customer.pk}


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_anonymous_callers_get_401(api_client, method, path, body):
    ids = world(ResellerFactory())
    response = call(api_client, method, path, body, ids)
    assert response.status_code == 401
    assert License.objects.count() == 1
    assert Client.objects.count() == 1


@pytest.mark.parametrize(
    ("method", "path", "body"), [e for e in ENDPOINTS if (e[0], e[1]) in PARTNER_ONLY]
)
def test_developers_get_403_on_partner_endpoints(client_for, method, path, body):
    developer = UserFactory()
    ids = world(developer)
    response = call(client_for(developer), method, path, body, ids)
    assert response.status_code == 403
    assert response.json()["detail"]
    assert License.objects.count() == 1
    assert Client.objects.count() == 1


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
@pytest.mark.parametrize("factory", [ResellerFactory, AgencyFactory])
def test_partners_may_call_every_endpoint(client_for, factory, method, path, body):
    partner = factory()
    PackFactory(owner=partner)
    ids = world(partner)
    response = call(client_for(partner), method, path, body, ids)
    # Allowed: never 401/403 (a rule may still refuse the request, e.g. the fake order code).
    assert response.status_code not in (401, 403), response.json()


@pytest.mark.parametrize(
    ("method", "path", "body"), [e for e in ENDPOINTS if (e[0], e[1]) not in PARTNER_ONLY]
)
def test_developers_may_call_the_other_endpoints(client_for, method, path, body):
    developer = UserFactory()
    ids = world(developer)
    response = call(client_for(developer), method, path, body, ids)
    assert response.status_code not in (401, 403), response.json()


def api_key_client(user):
    _key, raw = account_services.api_key_create(user=user, name="test")
    client = APIClient()
    client.credentials(HTTP_X_API_KEY=raw)
    return client


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_api_keys_open_exactly_the_eight_endpoints(method, path, body):
    reseller = ResellerFactory()
    PackFactory(owner=reseller)
    ids = world(reseller)
    response = call(api_key_client(reseller), method, path, body, ids)
    if (method, path) in KEY_ENDPOINTS:
        assert response.status_code not in (401, 403), response.json()
    else:
        assert response.status_code == 401
        assert response.json()["code"] == "bearer_token_required"
        assert License.objects.count() == 1
        assert License.objects.get().status == "revoked"


def test_api_key_answers_are_the_same_as_with_a_token(client_for):
    reseller = ResellerFactory()
    LicenseFactory(owner=reseller)
    by_key = streamed_json(api_key_client(reseller).get(f"{P}/licenses"))
    by_token = streamed_json(client_for(reseller).get(f"{P}/licenses"))
    assert by_key == by_token
    assert len(by_key) == 1


def test_api_key_creates_licences_and_clients_for_its_account():
    agency = AgencyFactory()
    PackFactory(owner=agency, size=5)
    client = api_key_client(agency)
    product = ProductFactory()
    assert (
        client.post(f"{P}/licenses", {"product_id": product.pk}, format="json").status_code == 201
    )
    bulk = client.post(f"{P}/licenses/bulk", {"product_id": product.pk, "count": 2}, format="json")
    assert bulk.status_code == 201
    assert bulk.json()["pack_credits_remaining"] == 3
    made = client.post(f"{P}/clients", {"email": "c@customer.example", "name": "C"}, format="json")
    assert made.status_code == 201
    assert License.objects.filter(owner=agency).count() == 3
    assert Client.objects.get().owner == agency


# --- Two resellers ----------------------------------------------------------------------------


@pytest.fixture
def two_resellers():
    a, b = ResellerFactory(), ResellerFactory()
    data = {}
    for reseller in (a, b):
        customer = ClientFactory(owner=reseller)
        data[reseller.pk] = {
            "client": customer,
            "own": LicenseFactory(owner=reseller),
            "assigned": LicenseFactory(owner=reseller, customer=customer),
            "revoked": LicenseFactory(owner=reseller, status=LicenseStatus.REVOKED),
        }
    return a, b, data


def test_resellers_lists_never_show_each_others_data(client_for, two_resellers):
    a, b, data = two_resellers
    for me, other in ((a, b), (b, a)):
        client = client_for(me)
        licence_ids = {item["id"] for item in streamed_json(client.get(f"{P}/licenses"))}
        assert licence_ids == {lic.pk for key, lic in data[me.pk].items() if key != "client"}
        assert [c["id"] for c in client.get(f"{P}/clients").json()] == [data[me.pk]["client"].pk]
        assert client.get(f"{P}/licenses/usage").json()["total_licenses"] == 3
        search = client.get(f"{P}/licenses", {"search": data[other.pk]["own"].license_key})
        assert streamed_json(search) == []


def test_foreign_ids_answer_404_and_change_nothing(client_for, two_resellers):
    a, b, data = two_resellers
    theirs = data[b.pk]
    client = client_for(a)
    checks = [
        client.get(f"{P}/licenses/{theirs['own'].pk}"),
        client.patch(f"{P}/licenses/{theirs['own'].pk}", {"tier": "starter"}, format="json"),
        client.delete(f"{P}/licenses/{theirs['own'].pk}"),
        client.delete(f"{P}/licenses/{theirs['revoked'].pk}/permanent"),
        client.post(f"{P}/licenses/{theirs['revoked'].pk}/reactivate"),
        client.delete(f"{P}/clients/{theirs['client'].pk}"),
        client.get(f"{P}/clients/{theirs['client'].pk}/licenses"),
    ]
    assert [response.status_code for response in checks] == [404] * len(checks)
    assert all(response.json()["detail"] for response in checks)
    assert License.objects.filter(owner=b, status="active").count() == 2
    assert License.objects.filter(owner=b, status="revoked").count() == 1
    assert Client.objects.filter(owner=b).count() == 1


def test_bulk_calls_skip_foreign_ids_without_counting_them(client_for, two_resellers):
    a, b, data = two_resellers
    client = client_for(a)
    mine, theirs = data[a.pk], data[b.pk]
    revoke = client.post(
        f"{P}/licenses/bulk-revoke",
        {"ids": [mine["own"].pk, theirs["own"].pk, theirs["assigned"].pk]},
        format="json",
    )
    assert revoke.json() == {"revoked": 1}
    delete = client.post(
        f"{P}/licenses/bulk-delete",
        {"ids": [mine["revoked"].pk, theirs["revoked"].pk]},
        format="json",
    )
    assert delete.json() == {"deleted": 1}
    assert License.objects.filter(owner=b, status="active").count() == 2
    assert License.objects.filter(pk=theirs["revoked"].pk).exists()


def test_a_reseller_cannot_use_another_resellers_client(client_for, two_resellers):
    a, b, data = two_resellers
    response = client_for(a).post(
        f"{P}/licenses",
        {"product_id": ProductFactory().pk, "customer_id": data[b.pk]["client"].pk},
        format="json",
    )
    assert response.status_code == 404
    assert License.objects.count() == 6


def test_renewal_of_foreign_licences_is_not_possible(client_for, two_resellers):
    a, b, data = two_resellers
    response = client_for(a).post(
        f"{P}/licenses/bulk-renew", {"license_ids": [data[b.pk]["own"].pk]}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["code"] == "license_not_found"
