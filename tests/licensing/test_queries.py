"""Query counts do not grow with the number of rows (no N+1), with ceilings."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext

from licensing.models import License
from tests.accounts.factories import ResellerFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import (
    ActivationFactory,
    LicenseFactory,
    PackFactory,
    ProductFactory,
)

pytestmark = pytest.mark.django_db


def make_rows(reseller, count):
    for _ in range(count):
        customer = ClientFactory(owner=reseller)
        license = LicenseFactory(owner=reseller, customer=customer, product=ProductFactory())
        ActivationFactory(license=license)
        ActivationFactory(license=license)


def queries(client, path, method="get", body=None):
    with CaptureQueriesContext(connection) as context:
        response = (
            getattr(client, method)(path, body, format="json")
            if body
            else getattr(client, method)(path)
        )
        if response.streaming:  # the licence list: its rows are read as the body streams
            b"".join(response.streaming_content)
    assert response.status_code in (200, 201), response
    return len(context.captured_queries)


@pytest.mark.parametrize(
    ("path", "ceiling"),
    [
        ("/api/v1/portal/licenses", 3),
        ("/api/v1/portal/licenses?search=example", 3),
        ("/api/v1/portal/clients", 2),
        ("/api/v1/portal/licenses/renewal-info", 3),
        ("/api/v1/portal/licenses/pack-credits", 2),
        ("/api/v1/portal/products", 2),
    ],
)
def test_lists_run_a_fixed_number_of_queries(
    client_for, django_assert_max_num_queries, path, ceiling
):
    reseller = ResellerFactory()
    client = client_for(reseller)
    make_rows(reseller, 2)
    PackFactory(owner=reseller)
    small = queries(client, path)
    make_rows(reseller, 20)
    for _ in range(5):
        PackFactory(owner=reseller)
    large = queries(client, path)
    assert small == large
    with django_assert_max_num_queries(ceiling):
        response = client.get(path)
        if response.streaming:
            b"".join(response.streaming_content)


def test_client_licences_run_a_fixed_number_of_queries(client_for, django_assert_max_num_queries):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    client = client_for(reseller)
    path = f"/api/v1/portal/clients/{customer.pk}/licenses"
    LicenseFactory(owner=reseller, customer=customer)
    small = queries(client, path)
    for _ in range(20):
        ActivationFactory(license=LicenseFactory(owner=reseller, customer=customer))
    assert queries(client, path) == small
    with django_assert_max_num_queries(4):
        client.get(path)


def test_bulk_create_of_100_has_a_query_ceiling(client_for, django_assert_max_num_queries):
    reseller = ResellerFactory()
    for _ in range(3):
        PackFactory(owner=reseller, size=40)
    client = client_for(reseller)
    product = ProductFactory()
    # 10, plus the audit trail: its content type (once per process) and its INSERT (in two
    # batches on SQLite, as the licences' own).
    with django_assert_max_num_queries(13):
        response = client.post(
            "/api/v1/portal/licenses/bulk", {"product_id": product.pk, "count": 100}, format="json"
        )
    assert response.status_code == 201
    assert response.json()["pack_credits_remaining"] == 20


def test_bulk_revoke_of_100_has_a_query_ceiling(client_for, django_assert_max_num_queries):
    reseller = ResellerFactory()
    ids = []
    for _ in range(100):
        license = LicenseFactory(owner=reseller)
        ActivationFactory(license=license)
        ids.append(license.pk)
    client = client_for(reseller)
    # The content type is read once per process and cached; whether an earlier test of this
    # process read it depends on the order, so it is read here and the count is the same in any.
    ContentType.objects.get_for_model(License)
    # 8, plus the audit trail's INSERT: one statement on PostgreSQL, two on SQLite (its
    # 999-parameter limit splits the 100 rows into batches).
    with django_assert_max_num_queries(10):
        response = client.post("/api/v1/portal/licenses/bulk-revoke", {"ids": ids}, format="json")
    assert response.json() == {"revoked": 100}


def test_verify_runs_one_query(api_client, django_assert_num_queries):
    license = LicenseFactory()
    for _ in range(5):
        ActivationFactory(license=license)
    with django_assert_num_queries(1):
        response = api_client.post(
            "/api/v1/licenses/verify",
            {"license_key": license.license_key, "domain": "site1.example.com"},
            format="json",
        )
    assert response.status_code == 200
