"""Store settings in the admin: every section with its defaults, typed fields, the service's
validation, only the values that differ from the defaults stored, and a reset."""

import pytest
from django.urls import reverse

from store.settings import registry
from store.settings import selectors as store_settings
from store.settings.models import SettingsSection
from tests.admin_forms import csrf_client, form_errors, form_values, post_form

pytestmark = pytest.mark.django_db

LIST = "admin:store_settings_settingssection_changelist"


def change_url(name: str) -> str:
    return reverse("admin:store_settings_settingssection_change", args=[name])


@pytest.fixture
def browser(admin_user):
    return csrf_client(admin_user)


def test_every_section_is_listed_even_with_nothing_stored(browser):
    SettingsSection.objects.create(name="inventory", values={"low_stock_threshold": 4})
    html = browser.get(reverse(LIST)).content.decode()
    for name, section in registry.SECTIONS.items():
        assert change_url(name) in html, name
        assert section.title in html
    assert "low_stock_threshold" in html
    assert {"general", "cart", "checkout", "payments", "tax"} <= set(registry.SECTIONS)


def test_a_section_shows_typed_fields_with_their_defaults(browser):
    html = browser.get(change_url("inventory")).content.decode()
    assert 'type="checkbox" name="out_of_stock_visibility"' in html
    assert '<select name="stock_display_format"' in html
    assert 'type="number" name="low_stock_threshold"' in html
    assert 'min="0"' in html
    assert "Default: 2." in html
    values = form_values(browser, change_url("inventory"))
    values.pop("csrfmiddlewaretoken")
    assert values == {
        "out_of_stock_visibility": "on",
        "stock_display_format": "always",
        "low_stock_threshold": "2",
    }


def test_saving_stores_only_what_differs_from_the_defaults(browser, admin_user):
    response = post_form(
        browser,
        change_url("inventory"),
        low_stock_threshold="5",
        out_of_stock_visibility=None,  # unchecked
    )
    assert response.status_code == 302, form_errors(response)
    row = SettingsSection.objects.get(name="inventory")
    assert row.values == {"low_stock_threshold": 5, "out_of_stock_visibility": False}
    assert row.updated_by == admin_user
    assert store_settings.get_section("inventory")["low_stock_threshold"] == 5
    response = post_form(browser, change_url("inventory"), low_stock_threshold="2")
    assert response.status_code == 302
    assert SettingsSection.objects.get(name="inventory").values == {
        "out_of_stock_visibility": False
    }


def test_invalid_values_are_refused_by_the_service_and_nothing_changes(browser):
    url = change_url("checkout")
    response = post_form(browser, url, order_received_page="https://shop.example/{nope}")
    assert response.status_code == 200
    assert "Only the placeholders" in " ".join(form_errors(response))
    response = post_form(browser, url, hold_minutes="0")
    assert response.status_code == 200
    response = post_form(browser, change_url("general"), store_country="XX")
    assert response.status_code == 200
    assert not SettingsSection.objects.exists()


def test_unknown_sections_and_keys_cannot_be_set(browser):
    response = browser.get(change_url("bogus"))
    assert response.status_code == 302  # "does not exist", back to the list
    response = post_form(browser, change_url("inventory"), bogus="1", low_stock_threshold="3")
    assert response.status_code == 302
    assert SettingsSection.objects.get().values == {"low_stock_threshold": 3}
    assert browser.get(reverse("admin:store_settings_settingssection_add")).status_code == 403


def test_a_section_can_be_reset_to_its_defaults(browser):
    SettingsSection.objects.create(name="media", values={"jpeg_quality": 50})
    response = post_form(browser, change_url("media"), _reset="Reset this section to its defaults")
    assert response.status_code == 302
    assert not SettingsSection.objects.filter(name="media").exists()
    assert store_settings.get_section("media")["jpeg_quality"] == 85
