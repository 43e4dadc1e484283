import pycountry
import pytest
from django_countries import countries

from store.settings.models import SettingsSection
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db

SECTIONS = {"general", "currency", "products", "inventory", "reviews", "media", "developer"}
SECTIONS |= {"tax", "cart", "checkout", "payments", "emails", "orders"}


def test_all_settings_with_their_defaults(admin_client_api):
    body = admin_client_api.get(f"{API}/settings").json()
    assert set(body) == SECTIONS
    assert body["inventory"] == {
        "out_of_stock_visibility": True,
        "stock_display_format": "always",
        "low_stock_threshold": 2,
    }
    assert body["developer"] == {"api_docs_enabled": False, "api_playground_enabled": False}
    assert body["currency"]["currency"] == "EUR"


def test_one_section(admin_client_api):
    body = admin_client_api.get(f"{API}/settings/reviews").json()
    assert body == {"enabled": True, "moderation_required": True}


def test_an_unknown_section_is_404(admin_client_api):
    error(admin_client_api.get(f"{API}/settings/nothing"), 404, "settings_section_not_found")
    error(admin_client_api.patch(f"{API}/settings/nothing", {"a": 1}, format="json"), 404)
    error(admin_client_api.post(f"{API}/settings/nothing/reset"), 404)


@pytest.mark.parametrize("method", ["patch", "put"])
def test_changing_some_keys_keeps_the_others(admin_client_api, admin_user, method):
    response = getattr(admin_client_api, method)(
        f"{API}/settings/inventory",
        {"low_stock_threshold": 5, "stock_display_format": "low_amount"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {
        "out_of_stock_visibility": True,
        "stock_display_format": "low_amount",
        "low_stock_threshold": 5,
    }
    row = SettingsSection.objects.get(name="inventory")
    assert row.values == {"low_stock_threshold": 5, "stock_display_format": "low_amount"}
    assert row.updated_by == admin_user
    assert admin_client_api.get(f"{API}/settings/inventory").json()["low_stock_threshold"] == 5


def test_unknown_keys_are_refused_and_nothing_is_stored(admin_client_api):
    body = error(
        admin_client_api.patch(
            f"{API}/settings/inventory", {"low_stock_threshold": 5, "colour": "red"}, format="json"
        ),
        400,
        "unknown_setting",
    )
    assert set(body["data"]["params"]) == {"colour"}
    assert not SettingsSection.objects.exists()


@pytest.mark.parametrize(
    ("section", "values", "param"),
    [
        ("inventory", {"low_stock_threshold": "5"}, "low_stock_threshold"),
        ("inventory", {"low_stock_threshold": -1}, "low_stock_threshold"),
        ("inventory", {"out_of_stock_visibility": "yes"}, "out_of_stock_visibility"),
        ("inventory", {"out_of_stock_visibility": 1}, "out_of_stock_visibility"),
        ("inventory", {"stock_display_format": "sometimes"}, "stock_display_format"),
        ("currency", {"currency": "XYZ"}, "currency"),
        ("currency", {"price_decimals": 1.5}, "price_decimals"),
        ("general", {"store_country": "ZZ"}, "store_country"),
        ("general", {"store_name": 42}, "store_name"),
        ("developer", {"api_docs_enabled": None}, "api_docs_enabled"),
    ],
)
def test_wrong_types_are_refused_and_nothing_is_stored(admin_client_api, section, values, param):
    body = error(
        admin_client_api.patch(f"{API}/settings/{section}", values, format="json"),
        400,
        "invalid_param",
    )
    assert param in body["data"]["params"]
    assert not SettingsSection.objects.exists()


def test_a_body_that_is_not_an_object_is_refused(admin_client_api):
    error(admin_client_api.patch(f"{API}/settings/inventory", [1], format="json"), 400)


def test_reset_goes_back_to_the_defaults(admin_client_api):
    admin_client_api.patch(f"{API}/settings/inventory", {"low_stock_threshold": 9}, format="json")
    response = admin_client_api.post(f"{API}/settings/inventory/reset")
    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    assert body["data"]["low_stock_threshold"] == 2
    assert not SettingsSection.objects.filter(name="inventory").exists()


def test_currency_options_come_from_iso_4217(admin_client_api):
    body = admin_client_api.get(f"{API}/settings/options/currencies").json()
    assert len(body) == len(list(pycountry.currencies))
    assert {"code": "EUR", "name": "Euro", "numeric": "978"} in body
    assert [c["code"] for c in body] == sorted(c["code"] for c in body)


def test_country_options_come_from_iso_3166(admin_client_api):
    body = admin_client_api.get(f"{API}/settings/options/countries").json()
    assert len(body) == len(countries)
    assert {"code": "GR", "name": "Greece"} in body


@pytest.mark.parametrize(
    "path",
    ["settings", "settings/general", "settings/options/currencies", "settings/options/countries"],
)
def test_settings_need_the_settings_capability(anon, manager_client, path):
    error(anon.get(f"{API}/{path}"), 401)
    error(manager_client.get(f"{API}/{path}"), 403, "insufficient_capability")


def test_a_user_with_ec_manage_settings_may_change_settings(store_client, customer):
    from tests.fixtures.store import grant

    grant(customer, "ec_manage_settings")
    response = store_client(customer).patch(
        f"{API}/settings/general", {"store_name": "Shop"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["store_name"] == "Shop"


def test_settings_changes_reach_the_product_list(admin_client_api, anon):
    make_product(title="Lamp")
    before = anon.get(f"{API}/products").json()["inventory_settings"]
    assert before == {"stock_display_format": "always", "low_stock_threshold": 2}
    admin_client_api.patch(f"{API}/settings/inventory", {"low_stock_threshold": 7}, format="json")
    after = anon.get(f"{API}/products").json()["inventory_settings"]
    assert after == {"stock_display_format": "always", "low_stock_threshold": 7}


def test_a_stored_value_the_declaration_no_longer_accepts_falls_back_to_the_default(
    admin_client_api,
):
    SettingsSection.objects.create(
        name="inventory", values={"low_stock_threshold": "many", "gone": 1}
    )
    assert admin_client_api.get(f"{API}/settings/inventory").json()["low_stock_threshold"] == 2
