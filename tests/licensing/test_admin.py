"""The back office: pages render, search works, bulk actions go through the services."""

import hashlib
from datetime import timedelta

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone

from clients.models import Client
from licensing.models import Activation, Component, License, LicenseStatus, Release
from tests.accounts.factories import ResellerFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import (
    ActivationFactory,
    LicenseFactory,
    PackFactory,
    ProductFactory,
    SubscriptionFactory,
)

pytestmark = pytest.mark.django_db


def messages_of(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.mark.parametrize(
    "model",
    [
        "licensing_license",
        "licensing_activation",
        "licensing_pack",
        "licensing_subscription",
        "licensing_renewalorder",
        "licensing_release",
        "licensing_component",
        "licensing_sandboxcheckout",
        "clients_client",
    ],
)
def test_changelists_render_with_search_and_filters(admin_client, model):
    license = LicenseFactory(owner=ResellerFactory(), customer=ClientFactory())
    ActivationFactory(license=license, domain="shop.example.com")
    PackFactory()
    SubscriptionFactory()
    url = reverse(f"admin:{model}_changelist")
    assert admin_client.get(url + "?q=example").status_code == 200
    assert admin_client.get(url).status_code == 200


def test_licence_search_finds_keys_and_domains_once(admin_client):
    license = LicenseFactory()
    ActivationFactory(license=license, domain="a.shop.example.com")
    ActivationFactory(license=license, domain="b.shop.example.com")
    LicenseFactory()
    url = reverse("admin:licensing_license_changelist")
    response = admin_client.get(url + "?q=shop.example.com")
    assert list(response.context["cl"].result_list) == [license]
    response = admin_client.get(url + "?q=" + license.license_key)
    assert list(response.context["cl"].result_list) == [license]
    filtered = admin_client.get(url + "?status__exact=revoked")
    assert list(filtered.context["cl"].result_list) == []


def action(admin_client, name, objects, model="licensing_license"):
    return admin_client.post(
        reverse(f"admin:{model}_changelist"),
        {"action": name, "_selected_action": [obj.pk for obj in objects]},
        follow=True,
    )


def test_revoke_action_goes_through_the_service(admin_client, events):
    active, revoked = LicenseFactory(), LicenseFactory(status=LicenseStatus.REVOKED)
    ActivationFactory(license=active, domain="a.com")
    response = action(admin_client, "revoke_selected", [active, revoked])
    assert "1 licence(s) revoked; 1 skipped (not eligible)." in messages_of(response)
    assert License.objects.get(pk=active.pk).status == "revoked"
    assert Activation.objects.count() == 0
    assert [(e, d["deactivated_domains"]) for _a, e, d in events] == [
        ("license.revoked", ["a.com"])
    ]


def test_reactivate_extend_invoice_and_delete_actions(admin_client):
    revoked = LicenseFactory(status=LicenseStatus.REVOKED)
    lapsed = LicenseFactory(status=LicenseStatus.REVOKED, expires_at=timezone.now() - timedelta(1))
    response = action(admin_client, "reactivate_selected", [revoked, lapsed])
    assert "1 licence(s) reactivated; 1 skipped (not eligible)." in messages_of(response)
    assert License.objects.get(pk=revoked.pk).status == "active"

    expired = LicenseFactory(status=LicenseStatus.EXPIRED, expires_at=timezone.now() - timedelta(2))
    action(admin_client, "extend_one_year", [expired])
    expired.refresh_from_db()
    assert expired.status == "active"
    assert expired.expires_at > timezone.now() + timedelta(days=364)

    action(admin_client, "mark_invoiced", [lapsed])
    response = action(admin_client, "delete_permanently", [lapsed, revoked])
    assert "0 licence(s) deleted; 2 skipped (not eligible)." in messages_of(response)
    assert License.objects.count() == 3
    gone = LicenseFactory(status=LicenseStatus.REVOKED)
    action(admin_client, "delete_permanently", [gone])
    assert not License.objects.filter(pk=gone.pk).exists()


def test_the_plain_delete_is_switched_off(admin_client):
    license = LicenseFactory()
    url = reverse("admin:licensing_license_delete", args=[license.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    assert License.objects.filter(pk=license.pk).exists()


def test_adding_a_licence_in_the_admin_uses_the_service(admin_client, events):
    owner = ResellerFactory()
    product = ProductFactory(slug="theme")
    response = admin_client.post(
        reverse("admin:licensing_license_add"),
        {"owner": owner.pk, "product": product.pk, "tier": "starter", "source": "nfr"},
        follow=True,
    )
    assert response.status_code == 200
    license = License.objects.get()
    assert (license.owner, license.source, license.status) == (owner, "nfr", "active")
    assert [e for _a, e, _d in events] == ["license.created"]


def test_admin_add_refuses_what_the_service_refuses(admin_client):
    owner = ResellerFactory()
    response = admin_client.post(
        reverse("admin:licensing_license_add"),
        {
            "owner": owner.pk,
            "product": ProductFactory().pk,
            "tier": "business",
            "source": "individual",
        },
    )
    assert response.status_code == 200
    assert "Business Bundle" in response.content.decode()
    assert License.objects.count() == 0


def test_deactivate_action_emits_deactivated(admin_client, events):
    activation = ActivationFactory(domain="x.example.com")
    action(admin_client, "deactivate_selected", [activation], model="licensing_activation")
    assert Activation.objects.count() == 0
    assert [(e, d["domain"]) for _a, e, d in events] == [("license.deactivated", "x.example.com")]


def test_subscription_expire_action(admin_client, events):
    subscription = SubscriptionFactory()
    LicenseFactory(owner=subscription.owner, subscription=subscription, tier="business")
    action(admin_client, "expire_now", [subscription], model="licensing_subscription")
    assert License.objects.get().status == "expired"
    assert [(e, d["licenses_revoked"]) for _a, e, d in events] == [("license.expired", 1)]


def test_release_and_component_uploads(admin_client):
    product = ProductFactory()
    content = b"PK\x03\x04 release bytes"
    response = admin_client.post(
        reverse("admin:licensing_release_add"),
        {
            "product": product.pk,
            "version": "2.1.0",
            "changelog": "New.",
            "file": SimpleUploadedFile("theme.zip", content),
            "released_at_0": "2026-01-01",
            "released_at_1": "10:00:00",
        },
        follow=True,
    )
    assert response.status_code == 200
    release = Release.objects.get()
    assert (release.file_size, release.sha256) == (
        len(content),
        hashlib.sha256(content).hexdigest(),
    )

    bad = admin_client.post(
        reverse("admin:licensing_release_add"),
        {
            "product": product.pk,
            "version": "two",
            "file": SimpleUploadedFile("t.zip", b"x"),
            "released_at_0": "2026-01-01",
            "released_at_1": "10:00:00",
        },
    )
    assert "not a version number" in bad.content.decode()
    assert Release.objects.count() == 1

    admin_client.post(
        reverse("admin:licensing_component_add"),
        {
            "product": product.pk,
            "slug": "slider",
            "name": "Slider",
            "version": "1.0.0",
            "min_tier": "starter",
            "file": SimpleUploadedFile("slider.zip", b"slider"),
        },
    )
    assert Component.objects.get().sha256 == hashlib.sha256(b"slider").hexdigest()


def test_pack_form_refuses_more_used_than_size(admin_client):
    owner = ResellerFactory()
    response = admin_client.post(
        reverse("admin:licensing_pack_add"),
        {
            "owner": owner.pk,
            "bundle": "B",
            "size": 5,
            "used": 6,
            "status": "active",
            "purchased_at_0": "2026-01-01",
            "purchased_at_1": "10:00:00",
        },
    )
    assert "cannot exceed" in response.content.decode()


def test_client_delete_action_revokes_its_licences(admin_client, events):
    customer = ClientFactory()
    LicenseFactory(owner=customer.owner, customer=customer)
    response = action(admin_client, "delete_with_licences", [customer], model="clients_client")
    assert "1 client(s) deleted; 1 licence(s) revoked." in messages_of(response)
    assert Client.objects.count() == 0
    assert License.objects.get().status == "revoked"
    assert [e for _a, e, _d in events] == ["license.revoked"]
