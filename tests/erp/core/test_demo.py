"""seed_demo: the demo store's Business licence, the ERP on under it, and its demo data."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from erp.core import gate
from erp.core.models import ErpImportedOrder, ErpJob, ErpSettings
from licensing.models import License, Tier
from store.access import selectors as access_selectors

pytestmark = pytest.mark.django_db


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_seed_demo_licenses_the_store_and_turns_the_erp_on_idempotently(seeded_demo):
    text = seeded_demo
    assert "ERP (the store's Business licence" in text
    row = ErpSettings.objects.get()
    licence = License.objects.get(license_key=row.license_key)
    assert (licence.tier, licence.product.slug, row.active) == (
        Tier.BUSINESS,
        "emporion-erp",
        True,
    )
    assert gate.compute().open
    accountant = access_selectors.manager_state(
        access_selectors.accounts().get(email="accountant@example.com")
    )
    assert accountant["roles"] == ["erp_accountant"]
    jobs = {job.kind: job.state for job in ErpJob.objects.all()}
    assert jobs == {"migrate_data": "completed", "inventory_backfill": "completed"}
    orders = ErpImportedOrder.objects.count()
    assert orders > 0

    call_command("seed_demo", stdout=StringIO())
    assert ErpSettings.objects.get().license_key == row.license_key
    assert License.objects.filter(product__slug="emporion-erp").count() == 1
    assert ErpJob.objects.count() == 2
    assert ErpImportedOrder.objects.count() == orders
