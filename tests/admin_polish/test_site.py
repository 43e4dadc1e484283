"""The admin site as staff meet it: its names, a "View site" link that leads somewhere, model
names in the plural as English has them, and long keys kept on one line."""

import re

import pytest
from django.contrib import admin
from django.urls import reverse

from tests.licensing.factories import LicenseFactory

pytestmark = pytest.mark.django_db

# A plural made by adding "s" reads wrong after these endings: class -> classs, box -> boxs,
# recovery -> recoverys, recently viewed -> recently vieweds (but feed -> feeds is right).
NAIVE_PLURAL_WRONG = re.compile(r"(s|x|z|ch|sh|[^aeiou]y|(?<!e)ed)$")


def naive_plural(name: str, plural: str) -> bool:
    """Whether `plural` is `name` + "s" where that is not English."""
    return plural == f"{name}s" and NAIVE_PLURAL_WRONG.search(name) is not None


def test_the_check_knows_a_wrong_plural_from_a_right_one():
    wrong = [("product tax class", "product tax classs"), ("cart recovery", "cart recoverys")]
    wrong += [("recently viewed", "recently vieweds"), ("tax box", "tax boxs")]
    right = [("feed", "feeds"), ("category", "categories"), ("delivery", "deliveries")]
    right += [("key", "keys"), ("invoice series", "invoice series"), ("order", "orders")]
    assert [naive_plural(*names) for names in wrong] == [True] * len(wrong)
    assert [naive_plural(*names) for names in right] == [False] * len(right)


def test_every_model_of_the_admin_has_a_real_plural():
    models = set()
    for model, model_admin in admin.site._registry.items():
        models.add(model)
        models.update(inline.model for inline in model_admin.inlines)
    wrong = [
        f"{model._meta.label}: {model._meta.verbose_name_plural}"
        for model in models
        if naive_plural(str(model._meta.verbose_name), str(model._meta.verbose_name_plural))
    ]
    assert wrong == []


def test_the_index_lists_the_fixed_plurals(admin_client):
    html = admin_client.get(reverse("admin:index")).content.decode()
    for plural in ("Product tax classes", "Cart recoveries", "Recently viewed products"):
        assert plural in html
    for naive in ("classs", "recoverys", "vieweds"):
        assert naive not in html


def test_the_site_is_called_emporion(admin_client):
    response = admin_client.get(reverse("admin:index"))
    html = response.content.decode()
    assert '<div id="site-name"><a href="/admin/">Emporion</a></div>' in html
    assert "<title>Administration | Emporion</title>" in html
    assert "Django" not in html
    changelist = admin_client.get(reverse("admin:store_orders_order_changelist")).content.decode()
    assert "<title>Select order to change | Emporion</title>" in changelist


def test_the_log_in_page_is_called_emporion(client):
    html = client.get(reverse("admin:login")).content.decode()
    assert "Emporion" in html
    assert "Django administration" not in html


def test_view_site_leads_to_a_page(admin_client, client):
    response = admin_client.get(reverse("admin:index"))
    site_url = str(response.context["site_url"])
    assert f'<a href="{site_url}">View site</a>' in response.content.decode()
    page = client.get(site_url)  # anyone may follow it, logged in or not
    assert page.status_code == 200
    assert "swagger" in page.content.decode().lower()


def test_a_licence_key_stays_on_one_line_in_the_list(admin_client):
    license = LicenseFactory()
    html = admin_client.get(reverse("admin:licensing_license_changelist")).content.decode()
    cell = re.search(r'<(?:td|th) class="([^"]*)"[^>]*>(?:<a [^>]*>)?' + license.license_key, html)
    assert cell is not None, "the key is not in the list"
    style = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    rule = style.split("{", 1)[0]
    # the cell's field class is one of those the one-line rule names
    named = re.findall(r'\[class\*="([^"]+)"\]', rule)
    assert any(part in cell.group(1) for part in named), cell.group(1)
    assert "white-space: nowrap" in style
