"""Sub-client endpoints."""

import pytest

from clients.models import Client
from licensing.models import Activation, License, LicenseStatus, Subscription
from tests.accounts.factories import AgencyFactory, ResellerFactory, UserFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import ActivationFactory, LicenseFactory, SubscriptionFactory

pytestmark = pytest.mark.django_db

CLIENTS = "/api/v1/portal/clients"


@pytest.mark.parametrize("factory", [ResellerFactory, AgencyFactory])
def test_create_and_list(client_for, factory):
    partner = factory()
    api = client_for(partner)
    response = api.post(
        CLIENTS,
        {"email": "  Ops@Northwind.Example ", "name": "Nora", "company": "Northwind"},
        format="json",
    )
    assert response.status_code == 201
    created = response.json()
    assert created == {
        "id": created["id"],
        "email": "ops@northwind.example",
        "name": "Nora",
        "company": "Northwind",
        "license_count": 0,
    }
    bare = api.post(CLIENTS, {"email": "b@x.example", "name": "Bo"}, format="json").json()
    assert bare["company"] is None
    customer = Client.objects.get(pk=created["id"])
    LicenseFactory(owner=partner, customer=customer)
    LicenseFactory(owner=partner, customer=customer, status=LicenseStatus.REVOKED)
    LicenseFactory(owner=partner)
    ClientFactory()  # someone else's
    assert api.get(CLIENTS).json() == [
        {
            "id": bare["id"],
            "email": "b@x.example",
            "name": "Bo",
            "company": None,
            "license_count": 0,
        },
        {**created, "license_count": 2},
    ]


def test_email_is_unique_system_wide(client_for):
    ClientFactory(email="taken@customer.example")
    for partner in (ResellerFactory(), AgencyFactory()):
        response = client_for(partner).post(
            CLIENTS, {"email": "TAKEN@customer.example", "name": "X"}, format="json"
        )
        assert response.status_code == 400
        assert response.json()["code"] == "email_taken"
    assert Client.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"email", "name"}),
        ({"email": "not-an-email", "name": "X"}, {"email"}),
        ({"email": "a@b.example", "name": ""}, {"name"}),
        ({"email": "a@b.example", "name": "X" * 151}, {"name"}),
    ],
)
def test_create_validates(client_for, body, fields):
    response = client_for(ResellerFactory()).post(CLIENTS, body, format="json")
    assert response.status_code == 422
    assert set(response.json()["errors"]) == fields
    assert Client.objects.count() == 0


def test_delete_revokes_every_licence_then_deletes_the_client(client_for, events):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    first = LicenseFactory(owner=reseller, customer=customer)
    second = LicenseFactory(owner=reseller, customer=customer, status=LicenseStatus.EXPIRED)
    already = LicenseFactory(owner=reseller, customer=customer, status=LicenseStatus.REVOKED)
    untouched = LicenseFactory(owner=reseller)
    ActivationFactory(license=first, domain="a.example.com")
    ActivationFactory(license=untouched, domain="kept.example.com")
    subscription = SubscriptionFactory(owner=reseller, customer=customer)

    response = client_for(reseller).delete(f"{CLIENTS}/{customer.pk}")
    assert response.status_code == 204
    assert response.content == b""
    assert not Client.objects.filter(pk=customer.pk).exists()
    for license in (first, second, already):
        license.refresh_from_db()
        assert (license.status, license.customer_id) == ("revoked", None)
    untouched.refresh_from_db()
    assert untouched.status == "active"
    assert list(Activation.objects.values_list("domain", flat=True)) == ["kept.example.com"]
    assert Subscription.objects.get(pk=subscription.pk).status == "expired"
    revoked = [(e, d) for _a, e, d in events if e == "license.revoked"]
    assert sorted(revoked, key=lambda item: item[1]["license_key"]) == sorted(
        [
            (
                "license.revoked",
                {"license_key": first.license_key, "deactivated_domains": ["a.example.com"]},
            ),
            ("license.revoked", {"license_key": second.license_key, "deactivated_domains": []}),
        ],
        key=lambda item: item[1]["license_key"],
    )


def test_client_licences_omit_source_customer_and_created(client_for):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    license = LicenseFactory(owner=reseller, customer=customer)
    ActivationFactory(license=license, domain="a.example.com")
    LicenseFactory(owner=reseller)
    body = client_for(reseller).get(f"{CLIENTS}/{customer.pk}/licenses").json()
    assert len(body) == 1
    assert set(body[0]) == {
        "id",
        "license_key",
        "product",
        "tier",
        "status",
        "expires_at",
        "activations",
    }
    assert body[0]["id"] == license.pk
    assert [a["domain"] for a in body[0]["activations"]] == ["a.example.com"]


def test_unknown_client_is_404(client_for):
    api = client_for(ResellerFactory())
    assert api.delete(f"{CLIENTS}/999999").status_code == 404
    assert api.get(f"{CLIENTS}/999999/licenses").status_code == 404


def test_developers_are_403(client_for):
    api = client_for(UserFactory())
    assert api.get(CLIENTS).status_code == 403
    response = api.post(CLIENTS, {"email": "a@b.example", "name": "A"}, format="json")
    assert response.status_code == 403
    assert Client.objects.count() == 0


def test_the_licences_of_a_deleted_client_stay_countable(client_for):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    LicenseFactory(owner=reseller, customer=customer)
    api = client_for(reseller)
    api.delete(f"{CLIENTS}/{customer.pk}")
    assert api.get("/api/v1/portal/licenses/usage").json()["total_licenses"] == 1
    assert License.objects.get().status == "revoked"
