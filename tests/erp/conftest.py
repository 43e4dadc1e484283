"""Fixtures of the ERP's tests: the store's licence (a licence of this service's licensing
app) and the ERP turned on under it."""

from __future__ import annotations

import pytest

from erp.core import services as erp_services
from licensing.models import Tier
from tests.licensing.factories import LicenseFactory


def store_licence(tier: str = Tier.BUSINESS, **kwargs):
    """A licence of this service's licensing app, as the vendor would issue the store."""
    return LicenseFactory(tier=tier, **kwargs)


@pytest.fixture
def business_licence(db):
    return store_licence()


@pytest.fixture
def erp_on(business_licence):
    """The ERP on under a Business licence (what every ERP route needs)."""
    erp_services.erp_activate(license_key=business_licence.license_key)
    return business_licence
