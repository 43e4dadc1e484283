"""The tax admin: classes and rates saved and deleted through the services (the API's checks),
bulk enable and disable."""

from __future__ import annotations

import pytest
from django.urls import reverse

from store.tax.models import TaxClass, TaxRate
from tests.store.tax.factories import make_rate, tax_class

pytestmark = pytest.mark.django_db


def rate_form(**fields):
    return {
        "tax_class": tax_class().pk,
        "country": "GR",
        "region": "",
        "postcodes": "",
        "rate": "24",
        "name": "VAT",
        "priority": 1,
        "applies_to_shipping": "on",
        "enabled": "on",
        **fields,
    }


def test_the_lists_show(admin_client):
    make_rate(24, country="GR")
    for name in ("taxclass", "taxrate"):
        assert admin_client.get(reverse(f"admin:store_tax_{name}_changelist")).status_code == 200


def test_adding_a_rate_runs_the_services_checks(admin_client):
    url = reverse("admin:store_tax_taxrate_add")
    response = admin_client.post(url, rate_form(region="gr-i", postcodes="104*"))
    assert response.status_code == 302, response.content
    rate = TaxRate.objects.get()
    assert (rate.region, rate.postcodes, rate.source) == ("I", "104*", "")
    again = admin_client.post(url, rate_form(region="I", postcodes="104*", rate="23"))
    assert again.status_code == 200
    assert "already applies" in again.content.decode()
    bad = admin_client.post(url, rate_form(country="XX"))
    assert bad.status_code == 200
    assert "Unknown country" in bad.content.decode()
    assert TaxRate.objects.count() == 1
    change = reverse("admin:store_tax_taxrate_change", args=[rate.pk])
    assert (
        admin_client.post(change, rate_form(region="I", postcodes="104*", rate="13")).status_code
        == 302
    )
    assert str(TaxRate.objects.get().rate.normalize()) == "13"


def test_classes_through_the_services(admin_client):
    response = admin_client.post(
        reverse("admin:store_tax_taxclass_add"), {"name": "Luxury", "slug": "", "sort_order": 5}
    )
    assert response.status_code == 302, response.content
    luxury = TaxClass.objects.get(slug="luxury")
    make_rate(30, country="GR", tax_class_slug="luxury")
    delete = reverse("admin:store_tax_taxclass_delete", args=[luxury.pk])
    admin_client.post(delete, {"post": "yes"}, follow=True)
    assert TaxClass.objects.filter(slug="luxury").exists()  # in use: refused
    standard = tax_class()
    admin_client.post(
        reverse("admin:store_tax_taxclass_delete", args=[standard.pk]), {"post": "yes"}
    )
    assert TaxClass.objects.filter(slug="standard").exists()


def test_bulk_enable_and_disable(admin_client):
    rates = [make_rate(24, country="GR"), make_rate(19, country="DE")]
    url = reverse("admin:store_tax_taxrate_changelist")
    ids = [r.pk for r in rates]
    admin_client.post(url, {"action": "disable", "_selected_action": ids})
    assert not TaxRate.objects.filter(enabled=True).exists()
    admin_client.post(url, {"action": "enable", "_selected_action": ids})
    assert TaxRate.objects.filter(enabled=True).count() == 2
