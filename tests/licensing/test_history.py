"""A licence's history: who changed what, through the API, the admin, a command and a task,
including the changes the services make with queryset updates (revoke, expire, invoice)."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from common.models import AuditEntry
from licensing.models import License, LicenseStatus
from licensing.tasks import expire_licenses
from tests.accounts.factories import UserFactory
from tests.admin_forms import csrf_client, post_action, post_form
from tests.licensing.factories import ActivationFactory, LicenseFactory, ProductFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:licensing_license_changelist"


def history(license):
    return list(
        AuditEntry.objects.filter(
            content_type__app_label="licensing", object_id=license.pk
        ).order_by("id")
    )


@pytest.fixture
def staff():
    return UserFactory(email="staff@example.com", is_staff=True, is_superuser=True)


def test_an_api_revoke_is_recorded_with_the_account(client_for):
    license = LicenseFactory()
    ActivationFactory(license=license, domain="shop.example.com")
    before = history(license)
    response = client_for(license.owner).delete(f"/api/v1/portal/licenses/{license.pk}")
    assert response.status_code == 200, response.content
    [entry] = history(license)[len(before) :]
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "revoked",
        license.owner,
        license.owner.email,
        "api",
    )
    assert entry.changes["status"] == ["active", "revoked"]
    assert entry.changes["revoked_at"][0] is None
    assert entry.note == "Deactivated on shop.example.com"
    assert entry.context == f"DELETE /api/v1/portal/licenses/{license.pk}"


def test_an_api_create_is_recorded(client_for):
    owner = UserFactory()
    product = ProductFactory()
    response = client_for(owner).post(
        "/api/v1/portal/licenses", {"product_id": product.pk}, format="json"
    )
    assert response.status_code == 201, response.content
    [entry] = history(License.objects.get())
    assert (entry.action, entry.actor, entry.via) == ("created", owner, "api")
    assert entry.changes["status"] == [None, "active"]
    assert entry.changes["product"] == [None, product.pk]


def test_an_admin_revoke_is_recorded_with_the_staff_member(staff):
    license = LicenseFactory()
    response = post_action(csrf_client(staff), reverse(CHANGELIST), "revoke_selected", [license.pk])
    assert response.status_code == 302
    entry = history(license)[-1]
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "revoked",
        staff,
        "staff@example.com",
        "admin",
    )
    assert entry.changes["status"] == ["active", "revoked"]


def test_marking_invoiced_in_bulk_is_recorded_per_licence(staff):
    first, second = LicenseFactory(), LicenseFactory()
    already = LicenseFactory(invoiced_at=timezone.now() - timedelta(days=3))
    post_action(
        csrf_client(staff),
        reverse(CHANGELIST),
        "mark_invoiced",
        [first.pk, second.pk, already.pk],
    )
    for license in (first, second):
        license.refresh_from_db()
        entry = history(license)[-1]
        assert (entry.action, entry.actor, entry.via) == ("invoiced", staff, "admin")
        assert entry.changes == {
            "invoiced_at": [None, license.invoiced_at.isoformat().replace("+00:00", "Z")]
        }
    assert history(already) == []  # already invoiced: unchanged


def test_a_command_revoke_is_recorded_as_system():
    license = LicenseFactory()
    call_command("licenses", "revoke", "--ids", str(license.pk), stdout=StringIO())
    license.refresh_from_db()
    assert license.status == LicenseStatus.REVOKED
    entry = history(license)[-1]
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "revoked",
        None,
        "system",
        "system",
    )
    assert entry.changes["status"] == ["active", "revoked"]


def test_the_expiry_task_is_recorded_as_system_with_its_name():
    license = LicenseFactory()
    License.objects.filter(pk=license.pk).update(expires_at=timezone.now() - timedelta(hours=1))
    expire_licenses.delay()
    entry = history(license)[-1]
    assert (entry.action, entry.actor_label, entry.via, entry.context) == (
        "expired",
        "system",
        "task",
        "licensing.expire_licenses",
    )
    assert entry.changes == {"status": ["active", "expired"]}


def test_the_admin_form_saves_through_the_service_and_is_recorded(staff):
    license = LicenseFactory()
    old = license.expires_at
    browser = csrf_client(staff)
    url = reverse("admin:licensing_license_change", args=[license.pk])
    new = (timezone.now() + timedelta(days=800)).replace(microsecond=0)
    response = post_form(
        browser,
        url,
        expires_at_0=new.strftime("%Y-%m-%d"),
        expires_at_1=new.strftime("%H:%M:%S"),
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    license.refresh_from_db()
    assert license.expires_at == new
    entry = history(license)[-1]
    assert (entry.action, entry.actor, entry.via) == ("changed", staff, "admin")
    assert entry.changes == {
        "expires_at": [
            old.isoformat().replace("+00:00", "Z"),
            new.isoformat().replace("+00:00", "Z"),
        ]
    }
    # The page shows the history.
    html = browser.get(url).content.decode()
    assert "expires_at: " in html
    assert "staff@example.com" in html


def test_the_admin_form_refuses_what_the_service_refuses(staff):
    invoiced = timezone.now() - timedelta(days=2)
    license = LicenseFactory(invoiced_at=invoiced)
    browser = csrf_client(staff)
    url = reverse("admin:licensing_license_change", args=[license.pk])
    past = timezone.now() - timedelta(days=1)
    response = post_form(
        browser,
        url,
        expires_at_0=past.strftime("%Y-%m-%d"),
        expires_at_1=past.strftime("%H:%M:%S"),
    )
    assert response.status_code == 200
    assert "Must be in the future." in response.content.decode()
    response = post_form(browser, url, invoiced_at_0="", invoiced_at_1="")
    assert response.status_code == 200
    assert "stays invoiced" in response.content.decode()
    tomorrow = timezone.now() + timedelta(days=1)
    response = post_form(
        browser,
        url,
        invoiced_at_0=tomorrow.strftime("%Y-%m-%d"),
        invoiced_at_1=tomorrow.strftime("%H:%M:%S"),
    )
    assert response.status_code == 200
    assert "Cannot be in the future." in response.content.decode()
    before = license.expires_at
    license.refresh_from_db()
    assert (license.expires_at, license.invoiced_at) == (before, invoiced)
    assert history(license) == []


def test_a_new_expiry_makes_an_expired_licence_active_again(staff):
    license = LicenseFactory(
        status=LicenseStatus.EXPIRED, expires_at=timezone.now() - timedelta(days=5)
    )
    new = (timezone.now() + timedelta(days=30)).replace(microsecond=0)
    response = post_form(
        csrf_client(staff),
        reverse("admin:licensing_license_change", args=[license.pk]),
        expires_at_0=new.strftime("%Y-%m-%d"),
        expires_at_1=new.strftime("%H:%M:%S"),
    )
    assert response.status_code == 302
    license.refresh_from_db()
    assert (license.status, license.expires_at) == (LicenseStatus.ACTIVE, new)
    assert history(license)[-1].changes["status"] == ["expired", "active"]


def test_activations_through_the_public_api_are_recorded_as_anonymous(api_client):
    license = LicenseFactory()
    response = api_client.post(
        "/api/v1/licenses/activate",
        {"license_key": license.license_key, "domain": "shop.example.com"},
        format="json",
    )
    assert response.status_code == 200, response.content
    entry = history(license)[-1]
    assert (entry.action, entry.actor, entry.actor_label, entry.via) == (
        "activated",
        None,
        "anonymous",
        "api",
    )
    assert entry.changes == {"domain": [None, "shop.example.com"]}


def test_a_rolled_back_change_leaves_no_entry(client_for):
    license = LicenseFactory(status=LicenseStatus.REVOKED, revoked_at=timezone.now())
    before = history(license)
    response = client_for(license.owner).delete(f"/api/v1/portal/licenses/{license.pk}")
    assert response.status_code == 400
    assert history(license) == before
