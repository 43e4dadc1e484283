"""The storefront admin: pages render; menus, items and the theme settings are written
through the services (refusals shown on the forms); subscriptions are unsubscribed by an
action; wishlists are read-only."""

import pytest
from django.urls import reverse

from store.emails.models import SentEmail
from tests.store.catalog.factories import make_product
from theme.storefront import demo, services
from theme.storefront.models import (
    Menu,
    MenuItem,
    NewsletterSubscription,
    ThemeSettings,
    WishlistItem,
)

pytestmark = pytest.mark.django_db


def test_every_page_renders(admin_client, customer):
    menu = services.menu_save(fields={"location": "primary", "name": "Main"})
    item = services.menu_item_save(fields={"menu": menu, "label": "Shop", "url": "/shop"})
    services.theme_settings_update(values={"tagline": "Hi"})
    subscription = NewsletterSubscription.objects.create(email="a@example.com")
    wish = WishlistItem.objects.create(user=customer, product=make_product(title="Lamp"))
    for name, obj in (
        ("menu", menu),
        ("menuitem", item),
        ("themesettings", ThemeSettings.objects.get()),
        ("newslettersubscription", subscription),
        ("wishlistitem", wish),
    ):
        assert (
            admin_client.get(reverse(f"admin:theme_storefront_{name}_changelist")).status_code
            == 200
        )
        change = admin_client.get(reverse(f"admin:theme_storefront_{name}_change", args=[obj.pk]))
        assert change.status_code == 200, name
    for name in ("newslettersubscription", "wishlistitem", "themesettings"):
        assert admin_client.get(reverse(f"admin:theme_storefront_{name}_add")).status_code == 403


def test_menus_and_items_go_through_the_services(admin_client):
    response = admin_client.post(
        reverse("admin:theme_storefront_menu_add"),
        {
            "location": "footer",
            "name": "Footer",
            "items-TOTAL_FORMS": 0,
            "items-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 302, response.content[:2000]
    menu = Menu.objects.get()
    add = reverse("admin:theme_storefront_menuitem_add")
    form = {"menu": menu.pk, "label": "Bad", "url": "javascript:alert(1)", "position": 0}
    response = admin_client.post(add, form)
    assert response.status_code == 200
    assert "url" in response.context["adminform"].form.errors
    assert not MenuItem.objects.exists()
    form["url"] = "/contact"
    assert admin_client.post(add, form).status_code == 302
    assert MenuItem.objects.get().url == "/contact"
    # a write bumps the menus' cache: the API shows it at once
    assert admin_client.get("/rest/theme/v1/menus/footer").json()["items"][0]["url"] == "/contact"


def test_theme_settings_are_checked_by_the_declaration(admin_client):
    services.theme_settings_update(values={"tagline": "Hi"})
    row = ThemeSettings.objects.get()
    change = reverse("admin:theme_storefront_themesettings_change", args=[row.pk])
    response = admin_client.post(change, {"values": '{"primary_color": "red"}'})
    assert response.status_code == 200
    assert ThemeSettings.objects.get().values == {"tagline": "Hi"}
    assert admin_client.post(change, {"values": '{"primary_color": "#112233"}'}).status_code == 302
    assert ThemeSettings.objects.get().values == {"primary_color": "#112233"}


def test_unsubscribe_action(admin_client):
    subscription = NewsletterSubscription.objects.create(email="a@example.com", status="confirmed")
    response = admin_client.post(
        reverse("admin:theme_storefront_newslettersubscription_changelist"),
        {"action": "unsubscribe", "_selected_action": [subscription.pk]},
    )
    assert response.status_code == 302
    subscription.refresh_from_db()
    assert subscription.status == "unsubscribed"


def test_the_confirmation_e_mail_shows_in_the_store_e_mail_log(
    admin_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(
            "/rest/theme/v1/newsletter/subscribe",
            {"email": "log@example.com"},
            content_type="application/json",
        )
    sent = SentEmail.objects.get(type="newsletter_confirm")
    assert sent.status == "sent"
    assert admin_client.get(reverse("admin:store_emails_sentemail_changelist")).status_code == 200
    page = admin_client.get(reverse("admin:store_emails_sentemail_change", args=[sent.pk]))
    assert page.status_code == 200


def test_the_demo_seeds_menus_once(anon):
    first = demo.seed()
    assert any("menu primary" in line for line in first)
    assert anon.get("/rest/theme/v1/menus/primary").json()["items"][0]["children"]
    assert anon.get("/rest/theme/v1/menus/footer").status_code == 200
    again = demo.seed()
    assert "  menu primary: kept" in again
    assert Menu.objects.count() == 2
    assert MenuItem.objects.count() == 8
