"""Tax: rates by country, region and postcode; prices with or without tax; shipping taxable
or not; the EU VAT rates loaded from the data the project ships."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django_countries import countries

from store.common.locations import Location
from store.settings import services as settings_services
from store.tax import selectors, services
from store.tax.models import TaxClass, TaxRate
from tests.store.cart.helpers import CART, add, cart_of
from tests.store.catalog.factories import make_product
from tests.store.shipping.factories import make_method, make_zone
from tests.store.tax.factories import make_rate, set_product_class

pytestmark = pytest.mark.django_db

EU = {
    "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "HU", "IE",
    "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
}  # fmt: skip


def tax_settings(**values):
    settings_services.settings_update(section="tax", values=values)


def percents(location, slug="standard", **kwargs):
    return [r.percent for r in selectors.rates_for(location, {slug}, **kwargs)[slug]]


def test_three_tax_classes_are_seeded():
    assert list(TaxClass.objects.values_list("slug", flat=True)) == [
        "standard",
        "reduced-rate",
        "zero-rate",
    ]


def test_the_closest_rate_wins_within_a_priority():
    make_rate(10)  # everywhere
    make_rate(24, country="GR")
    make_rate(17, country="GR", region="M")  # a lower rate for one region
    make_rate(13, country="GR", postcodes="851*, 852*")  # and for some islands
    assert percents(Location("FR")) == [Decimal(10)]
    assert percents(Location("GR", "I", "10431")) == [Decimal(24)]
    assert percents(Location("GR", "M", "71201")) == [Decimal(17)]
    assert percents(Location("GR", "L", "85100")) == [Decimal(13)]


def test_rates_of_different_priorities_add_up():
    make_rate(5, country="CA", name="GST", priority=1)
    make_rate(7, country="CA", region="BC", name="PST", priority=2)
    rates = selectors.rates_for(Location("CA", "BC"), {"standard"})["standard"]
    assert [(r.label, r.percent) for r in rates] == [("GST", 5), ("PST", 7)]
    assert percents(Location("CA", "ON")) == [Decimal(5)]


def test_disabled_and_non_shipping_rates():
    make_rate(24, country="GR", enabled=False)
    assert percents(Location("GR")) == []
    make_rate(13, country="GR", applies_to_shipping=False)
    assert percents(Location("GR")) == [Decimal(13)]
    assert percents(Location("GR"), shipping=True) == []


def test_tax_off_means_no_rates():
    make_rate(24, country="GR")
    tax_settings(enabled=False)
    assert percents(Location("GR")) == []


@pytest.fixture
def greece():
    make_rate(24, country="GR")
    make_rate(13, country="GR", tax_class_slug="reduced-rate")
    make_rate(19, country="DE")
    zone = make_zone("All", fallback=True)
    make_method(zone, title="Courier", cost="5.00")


def test_prices_without_tax_get_tax_on_top(anon, greece):
    lamp = make_product(title="Lamp", regular_price="10.00")
    cart = add(anon, lamp.pk, 3).json()["cart"]
    assert {
        k: cart[k] for k in ("subtotal", "subtotal_tax", "shipping", "shipping_tax", "tax", "total")
    } == {
        "subtotal": "30.00",
        "subtotal_tax": "7.20",
        "shipping": "5.00",
        "shipping_tax": "1.20",
        "tax": "8.40",
        "total": "43.40",
    }
    assert cart["prices_include_tax"] is False
    assert cart["tax_lines"] == [
        {"rate_id": TaxRate.objects.get(rate=24).pk, "label": "VAT", "rate": "24", "amount": "8.40"}
    ]


def test_prices_with_tax_keep_the_price_and_show_the_tax_inside(anon, greece):
    tax_settings(prices_include_tax=True)
    lamp = make_product(title="Lamp", regular_price="12.40")
    cart = add(anon, lamp.pk, 1).json()["cart"]
    assert (cart["items"][0]["price"], cart["items"][0]["total"]) == ("12.40", "12.40")
    assert (cart["subtotal"], cart["subtotal_tax"]) == ("10.00", "2.40")
    # Shipping 5.00 with tax inside: 0.97 tax (5 x 24/124 = 0.9677), 4.03 net.
    assert (cart["shipping"], cart["shipping_tax"], cart["tax"], cart["total"]) == (
        "4.03",
        "0.97",
        "3.37",
        "17.40",
    )
    assert cart["prices_include_tax"] is True


def test_the_customers_rate_applies_inside_tax_inclusive_prices(anon, greece):
    tax_settings(prices_include_tax=True)
    lamp = make_product(title="Lamp", regular_price="11.90")
    add(anon, lamp.pk)
    cart = anon.post(f"{CART}/shipping-address", {"country": "DE"}, format="json").json()["cart"]
    assert (cart["items"][0]["price"], cart["subtotal"], cart["subtotal_tax"]) == (
        "11.90",
        "10.00",
        "1.90",
    )


def test_a_products_tax_class(anon, greece):
    book = make_product(title="Book", regular_price="10.00")
    set_product_class(book, "reduced-rate")
    bread = make_product(title="Bread", regular_price="10.00")
    set_product_class(bread, "zero-rate")
    add(anon, book.pk)
    cart = add(anon, bread.pk).json()["cart"]
    assert (cart["subtotal_tax"], cart["shipping_tax"]) == ("1.30", "1.20")


def test_shipping_not_taxable(anon, greece):
    tax_settings(shipping_taxable=False)
    cart = add(anon, make_product(title="Lamp", regular_price="10.00").pk).json()["cart"]
    assert (cart["shipping_tax"], cart["tax"], cart["total"]) == ("0.00", "2.40", "17.40")


def test_a_method_not_taxable(anon, greece):
    from store.shipping.models import ShippingMethod

    for method in ShippingMethod.objects.all():
        method.taxable = False
        method.save()
    cart = add(anon, make_product(title="Lamp", regular_price="10.00").pk).json()["cart"]
    assert cart["shipping_tax"] == "0.00"


def test_shipping_tax_class_setting(anon, greece):
    tax_settings(shipping_tax_class="reduced-rate")
    cart = add(anon, make_product(title="Lamp", regular_price="10.00").pk).json()["cart"]
    assert cart["shipping_tax"] == "0.65"  # 13% of 5.00


def test_tax_based_on_the_store_address(anon, greece):
    add(anon, make_product(title="Lamp", regular_price="10.00").pk)
    anon.post(f"{CART}/shipping-address", {"country": "DE"}, format="json")
    assert cart_of(anon)["subtotal_tax"] == "1.90"
    tax_settings(tax_based_on="base")
    assert cart_of(anon)["subtotal_tax"] == "2.40"


def test_tax_settings_are_validated(admin_client_api):
    response = admin_client_api.patch(
        "/rest/ec/v1/settings/tax", {"tax_based_on": "moon"}, format="json"
    )
    assert response.status_code == 400
    body = admin_client_api.get("/rest/ec/v1/settings/tax").json()
    assert body == {
        "enabled": True,
        "prices_include_tax": False,
        "tax_based_on": "shipping",
        "shipping_taxable": True,
        "shipping_tax_class": "standard",
        "eu_reverse_charge": False,
    }


# --- EU VAT data ------------------------------------------------------------------------------


def test_the_shipped_eu_vat_data_is_complete_and_sane():
    table = selectors.eu_vat_table()
    assert table["as_of"]
    assert table["source"]
    codes = [entry["country"] for entry in table["countries"]]
    assert set(codes) == EU
    assert len(codes) == 27
    for entry in table["countries"]:
        assert entry["country"] in countries
        assert Decimal(15) <= entry["standard"] <= Decimal(30)  # EU minimum standard rate is 15%
        assert entry["reduced"] == sorted(entry["reduced"], reverse=True)
        assert all(Decimal(0) < r < entry["standard"] for r in entry["reduced"])
    by_country = {e["country"]: e for e in table["countries"]}
    assert by_country["GR"]["standard"] == Decimal(24)
    assert by_country["DE"]["standard"] == Decimal(19)
    assert by_country["DK"]["reduced"] == []


def test_loading_eu_vat_rates_creates_then_changes_nothing():
    out = StringIO()
    call_command("load_eu_vat_rates", stdout=out)
    assert "54 created" in out.getvalue()
    assert TaxRate.objects.filter(source="eu_vat").count() == 54
    assert percents(Location("GR")) == [Decimal(24)]
    assert percents(Location("GR"), "reduced-rate") == [Decimal(13)]
    assert percents(Location("DK"), "reduced-rate") == [Decimal(25)]  # no reduced rate: standard
    assert percents(Location("FI")) == [Decimal("25.5")]
    out = StringIO()
    call_command("load_eu_vat_rates", stdout=out)
    assert "0 created, 0 updated, 54 unchanged" in out.getvalue()


def test_loading_updates_its_own_rates_only():
    services.eu_vat_rates_load()
    TaxRate.objects.filter(source="eu_vat", country="GR", tax_class__slug="standard").update(
        rate=23
    )
    mine = make_rate(99, country="GR", tax_class_slug="standard", priority=2)
    report = services.eu_vat_rates_load()
    assert report.updated == ["GR standard 24% (was 23%)"]
    mine.refresh_from_db()
    assert mine.rate == Decimal(99)


def test_dry_run_saves_nothing():
    out = StringIO()
    call_command("load_eu_vat_rates", "--dry-run", stdout=out)
    assert "54 to create" in out.getvalue()
    assert not TaxRate.objects.exists()


@pytest.mark.parametrize(
    ("fields", "bad"),
    [
        ({"country": "XX", "region": "", "postcodes": ""}, "country"),
        ({"country": "", "region": "I", "postcodes": ""}, "region"),
        ({"country": "GR", "region": "ZZ", "postcodes": ""}, "region"),
        ({"country": "GR", "region": "", "postcodes": "1*2"}, "postcodes"),
        ({"country": "GR", "region": "", "postcodes": "200...100"}, "postcodes"),
    ],
)
def test_rate_location_checks(fields, bad):
    assert bad in services.tax_rate_problems(**fields)


def test_rate_location_checks_pass_for_good_values():
    assert (
        services.tax_rate_problems(country="GR", region="I", postcodes="104*\n10000...19999") == {}
    )


def test_rate_changes_are_seen_at_once_despite_the_cache(django_assert_num_queries):
    rate = make_rate(24, country="GR")
    assert percents(Location("GR")) == [Decimal(24)]
    with django_assert_num_queries(0):
        assert percents(Location("GR")) == [Decimal(24)]
    rate.rate = Decimal(23)
    rate.save()
    assert percents(Location("GR")) == [Decimal(23)]
    rate.delete()
    assert percents(Location("GR")) == []


def test_the_admin_bulk_actions_drop_the_cached_rates(client, admin_user):
    from django.urls import reverse

    rate = make_rate(24, country="GR")
    assert percents(Location("GR")) == [Decimal(24)]
    client.force_login(admin_user)
    client.post(
        reverse("admin:store_tax_taxrate_changelist"),
        {"action": "disable", "_selected_action": [rate.pk]},
    )
    assert percents(Location("GR")) == []


def test_loading_from_a_dataset_file(tmp_path):
    """--file reads a dataset in the library's format (a newer release, downloaded)."""
    import eu_vat_rates_data
    from django.core.management.base import CommandError

    services.eu_vat_rates_load()
    dataset = json.loads(json.dumps(eu_vat_rates_data.dataset))
    dataset["version"] = "2099-01-01"
    dataset["rates"]["GR"]["standard"] = 25.0
    dataset["rates"]["GR"]["reduced"] = [17.0, 12.0, 6.0]  # 17: the islands', left out
    path = tmp_path / "eu_vat_rates_data.json"
    path.write_text(json.dumps(dataset))
    out = StringIO()
    call_command("load_eu_vat_rates", "--file", str(path), stdout=out)
    assert "as of 2099-01-01" in out.getvalue()
    assert "updated GR standard 25% (was 24%)" in out.getvalue()
    assert percents(Location("GR")) == [Decimal(25)]
    assert percents(Location("GR"), "reduced-rate") == [Decimal(12)]
    for bad in ("[]", '{"rates": {"GR": {"eu_member": true, "standard": "lots"}}}', "{", ""):
        path.write_text(bad)
        with pytest.raises(CommandError):
            call_command("load_eu_vat_rates", "--file", str(path), stdout=StringIO())
    with pytest.raises(CommandError):
        call_command("load_eu_vat_rates", "--file", str(tmp_path / "missing.json"))


def test_the_library_table_leaves_out_special_territories():
    from store.tax import eu_vat

    dataset = {
        "version": "2026-01-01",
        "source": "test",
        "rates": {
            "PT": {"eu_member": True, "country": "Portugal", "standard": 23.0,
                   "reduced": [22.0, 16.0, 13.0, 6.0], "super_reduced": 6.0},
            "NO": {"eu_member": False, "standard": 25.0, "reduced": [15.0]},
        },
    }  # fmt: skip
    table = eu_vat.table_from_dataset(dataset, origin="test")
    assert table["countries"] == [
        {
            "country": "PT",
            "name": "Portugal",
            "standard": Decimal(23),
            "reduced": [Decimal(13), Decimal(6)],
            "super_reduced": [],
        }
    ]
    assert (table["as_of"], table["source"]) == ("2026-01-01", "test (test)")
