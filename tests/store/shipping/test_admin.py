"""The shipping admin: a zone with its regions and methods inline, a method on its own page;
every write through the services (regions, the one fallback zone, each type's settings)."""

import json

import pytest
from django.urls import reverse

from store.shipping.models import ShippingMethod, ShippingZone
from tests.admin_forms import csrf_client, form_errors, form_values
from tests.store.shipping.factories import make_method, make_zone

pytestmark = pytest.mark.django_db

ADD_ZONE = reverse("admin:store_shipping_shippingzone_add")


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


def zone_change(zone) -> str:
    return reverse("admin:store_shipping_shippingzone_change", args=[zone.pk])


def method_change(method) -> str:
    return reverse("admin:store_shipping_shippingmethod_change", args=[method.pk])


def test_adding_a_zone_with_regions_and_methods_inline(browser):
    values = form_values(browser, ADD_ZONE)
    values.update(
        {
            "name": "Greece",
            "sort_order": "1",
            "locations-TOTAL_FORMS": "2",
            "locations-0-type": "country",
            "locations-0-code": "gr",
            "locations-1-type": "postcode",
            "locations-1-code": "104*",
            "methods-TOTAL_FORMS": "2",
            "methods-0-type": "flat_rate",
            "methods-0-title": "Courier",
            "methods-0-sort_order": "0",
            "methods-0-enabled": "on",
            "methods-0-taxable": "on",
            "methods-0-settings": json.dumps({"cost": "3.50", "cost_per_item": "0.5"}),
            "methods-1-type": "weight_based",
            "methods-1-title": "By weight",
            "methods-1-sort_order": "1",
            "methods-1-enabled": "on",
            "methods-1-settings": json.dumps({"weight_rates": [{"max_weight": 2, "cost": 5}]}),
        }
    )
    response = browser.post(ADD_ZONE, values)
    assert response.status_code == 302, form_errors(response)
    zone = ShippingZone.objects.get()
    assert sorted(zone.locations.values_list("type", "code")) == [
        ("country", "GR"),
        ("postcode", "104*"),
    ]
    courier, weight = zone.methods.order_by("sort_order")
    assert (str(courier.cost), str(courier.cost_per_item)) == ("3.50", "0.50")
    assert weight.weight_rates == [{"max_weight": "2", "cost": "5.00"}]
    assert weight.taxable is False
    assert browser.get(zone_change(zone)).status_code == 200
    assert browser.get(reverse("admin:store_shipping_shippingzone_changelist")).status_code == 200


@pytest.mark.parametrize(
    ("changes", "bad"),
    [
        ({"locations-0-type": "country", "locations-0-code": "XX"}, "Unknown country"),
        ({"locations-0-type": "postcode", "locations-0-code": "1*4"}, "wildcard"),
        (
            {
                "methods-0-type": "weight_based",
                "methods-0-title": "W",
                "methods-0-settings": json.dumps({"weight_rates": []}),
            },
            "entries",
        ),
        (
            {
                "methods-0-type": "flat_rate",
                "methods-0-title": "F",
                "methods-0-settings": json.dumps({"cost": "-1"}),
            },
            "negative",
        ),
    ],
)
def test_bad_regions_or_settings_are_refused_and_nothing_saved(browser, changes, bad):
    values = form_values(browser, ADD_ZONE)
    values.update({"name": "Z", "sort_order": "1"})
    if any(key.startswith("locations") for key in changes):
        values["locations-TOTAL_FORMS"] = "1"
    if any(key.startswith("methods") for key in changes):
        values.update({"methods-TOTAL_FORMS": "1", "methods-0-sort_order": "0"})
    values.update(changes)
    response = browser.post(ADD_ZONE, values)
    assert response.status_code == 200
    assert any(bad in text for text in form_errors(response)), form_errors(response)
    assert not ShippingZone.objects.exists()
    assert not ShippingMethod.objects.exists()


def test_a_second_fallback_zone_is_refused(browser):
    make_zone("World", fallback=True)
    values = form_values(browser, ADD_ZONE)
    values.update({"name": "Elsewhere", "sort_order": "1", "is_fallback": "on"})
    response = browser.post(ADD_ZONE, values)
    assert response.status_code == 200
    assert any("fallback" in text for text in form_errors(response)), form_errors(response)
    assert ShippingZone.objects.count() == 1


def test_changing_regions_and_a_method_through_the_services(browser):
    zone = make_zone("Greece", countries=["GR"])
    method = make_method(zone, title="Courier", cost="3")
    values = form_values(browser, zone_change(zone))
    values["locations-0-code"] = "gr-i"
    values["locations-0-type"] = "region"
    values["methods-0-settings"] = json.dumps({"cost": "4.00"})
    response = browser.post(zone_change(zone), values)
    assert response.status_code == 302, form_errors(response)
    assert list(zone.locations.values_list("type", "code")) == [("region", "GR:I")]
    method.refresh_from_db()
    assert str(method.cost) == "4.00"
    # The method's own page.
    values = form_values(browser, method_change(method))
    values["type"] = "free_shipping"
    values["settings"] = json.dumps({"requires": "min_amount"})
    response = browser.post(method_change(method), values)
    assert response.status_code == 200
    assert any("minimum amount" in text for text in form_errors(response))
    values["settings"] = json.dumps({"requires": "min_amount", "min_amount": "40"})
    response = browser.post(method_change(method), values)
    assert response.status_code == 302, form_errors(response)
    method.refresh_from_db()
    assert (method.type, str(method.min_amount), method.cost) == ("free_shipping", "40.00", 0)
    # Deleting the zone goes through the service.
    response = browser.post(
        reverse("admin:store_shipping_shippingzone_delete", args=[zone.pk]),
        {"post": "yes", "csrfmiddlewaretoken": browser.cookies["csrftoken"].value},
    )
    assert response.status_code == 302
    assert not ShippingZone.objects.exists()
