"""Real concurrent transactions (PostgreSQL): limits hold and payments extend once."""

import pytest

from common.errors import ServiceError
from licensing.models import Activation, License, Pack, RenewalOrder
from licensing.payments.sandbox import sandbox_complete
from licensing.services.activation import ActivationResult, license_activate
from licensing.services.licenses import BulkCreateResult, license_bulk_create, license_create
from licensing.services.renewals import renewal_confirm, renewal_order_create
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.concurrency import race
from tests.licensing.factories import LicenseFactory, PackFactory, ProductFactory

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_racing_activations_never_exceed_the_domain_limit():
    license = LicenseFactory(product=ProductFactory(starter_max_domains=1))
    calls = [
        (lambda n=n: license_activate(license_key=license.license_key, domain=f"s{n}.com"))
        for n in range(4)
    ]
    results = race(*calls)
    assert Activation.objects.filter(license=license).count() == 1
    assert sum(isinstance(r, ActivationResult) for r in results) == 1
    assert sum(getattr(r, "code", None) == "too_many_domains" for r in results) == 3


def test_racing_bulk_creates_never_overspend_pack_credits():
    reseller = ResellerFactory()
    PackFactory(owner=reseller, size=10)
    product = ProductFactory()
    results = race(
        *[lambda: license_bulk_create(owner=reseller, product_id=product.pk, count=6)] * 3
    )
    assert sum(isinstance(r, BulkCreateResult) for r in results) == 1
    assert sum(getattr(r, "code", None) == "insufficient_pack_credits" for r in results) == 2
    assert License.objects.count() == 6
    assert Pack.objects.get().used == 6


def test_the_developer_limit_holds_under_a_race(settings):
    settings.LICENSE_LIMIT_DEVELOPER = 1
    developer = UserFactory()
    product = ProductFactory()
    results = race(*[lambda: license_create(owner=developer, product=product)] * 3)
    assert License.objects.filter(owner=developer).count() == 1
    assert sum(isinstance(r, ServiceError) for r in results) == 2


def test_racing_confirmations_extend_once():
    owner = UserFactory()
    license = LicenseFactory(owner=owner)
    before = license.expires_at
    order = renewal_order_create(user=owner, license_ids=[license.pk])
    checkout = sandbox_complete(token=order.provider_reference, pay=True)
    results = race(
        *[
            lambda: renewal_confirm(
                user=owner, order_code=order.code, transaction_id=checkout.transaction_id
            )
        ]
        * 3
    )
    assert all(isinstance(r, RenewalOrder) for r in results), results
    license.refresh_from_db()
    assert license.expires_at.year == before.year + 1
    assert license.expires_at.replace(year=before.year) == before
