"""Expiry: the beat task and `licenses expire`, idempotent, license.expired events."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from config.celery import app
from licensing.models import License, LicenseStatus, Pack, Subscription, Tier
from licensing.services.expiry import expire_due, subscription_expire
from licensing.tasks import expire_licenses
from tests.accounts.factories import ResellerFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import LicenseFactory, PackFactory, SubscriptionFactory

pytestmark = pytest.mark.django_db


def statuses(*licenses):
    return [License.objects.get(pk=lic.pk).status for lic in licenses]


def test_licences_past_expiry_become_expired_once(events):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    past = timezone.now() - timedelta(minutes=1)
    own = LicenseFactory(owner=reseller, expires_at=past)
    theirs = [LicenseFactory(owner=reseller, customer=customer, expires_at=past) for _ in range(2)]
    current = LicenseFactory(owner=reseller)
    revoked = LicenseFactory(owner=reseller, status=LicenseStatus.REVOKED, expires_at=past)

    result = expire_due()
    assert (result.licenses, result.subscriptions) == (3, 0)
    assert statuses(own, *theirs, current, revoked) == [
        "expired",
        "expired",
        "expired",
        "active",
        "revoked",
    ]
    assert sorted(
        ((e, d["customer_id"], d["licenses_revoked"], d["subscription_id"]) for _a, e, d in events),
        key=str,
    ) == sorted(
        [("license.expired", None, 1, None), ("license.expired", customer.pk, 2, None)], key=str
    )
    assert all(account == reseller for account, _e, _d in events)

    events.clear()
    again = expire_due()
    assert (again.licenses, again.subscriptions, again.packs) == (0, 0, 0)
    assert events == []


def test_an_expiring_subscription_expires_its_licences(events):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    subscription = SubscriptionFactory(
        owner=reseller, customer=customer, current_period_end=timezone.now() - timedelta(hours=1)
    )
    other = SubscriptionFactory(owner=reseller)
    covered = [
        LicenseFactory(owner=reseller, tier=Tier.BUSINESS, subscription=subscription)
        for _ in range(2)
    ]
    revoked = LicenseFactory(
        owner=reseller, subscription=subscription, status=LicenseStatus.REVOKED
    )
    elsewhere = LicenseFactory(owner=reseller, tier=Tier.BUSINESS, subscription=other)

    result = expire_due()
    assert (result.subscriptions, result.licenses) == (1, 2)
    assert Subscription.objects.get(pk=subscription.pk).status == "expired"
    assert Subscription.objects.get(pk=other.pk).status == "active"
    assert statuses(*covered, revoked, elsewhere) == ["expired", "expired", "revoked", "active"]
    assert events == [
        (
            reseller,
            "license.expired",
            {"customer_id": customer.pk, "licenses_revoked": 2, "subscription_id": subscription.pk},
        )
    ]
    events.clear()
    assert subscription_expire(subscription_id=subscription.pk) is None
    assert expire_due().subscriptions == 0
    assert events == []


def test_packs_lapse():
    lapsed = PackFactory(expires_at=timezone.now() - timedelta(days=1))
    forever = PackFactory(expires_at=None)
    assert expire_due().packs == 1
    assert Pack.objects.get(pk=lapsed.pk).status == "expired"
    assert Pack.objects.get(pk=forever.pk).status == "active"


def test_beat_runs_the_task_hourly():
    entry = app.conf.beat_schedule["expire-licenses"]
    assert entry["task"] == "licensing.expire_licenses"
    assert entry["task"] in app.tasks


def test_task_expires_and_reports():
    LicenseFactory(expires_at=timezone.now() - timedelta(seconds=5))
    assert expire_licenses.delay().get() == {"subscriptions": 0, "licenses": 1, "packs": 0}
    assert expire_licenses.delay().get() == {"subscriptions": 0, "licenses": 0, "packs": 0}


def test_command_expire_and_dry_run(events):
    license = LicenseFactory(expires_at=timezone.now() - timedelta(seconds=5))
    SubscriptionFactory(current_period_end=timezone.now() - timedelta(seconds=5))
    out = StringIO()
    call_command("licenses", "expire", "--dry-run", stdout=out)
    assert (
        "Dry run: 1 subscription(s), at least 1 licence(s) and 0 pack(s) are due." in out.getvalue()
    )
    assert License.objects.get(pk=license.pk).status == "active"
    assert events == []
    out = StringIO()
    call_command("licenses", "expire", stdout=out)
    assert "Expired 1 subscription(s), 1 licence(s) and 0 pack(s)." in out.getvalue()
    out = StringIO()
    call_command("licenses", "expire", stdout=out)
    assert "Expired 0 subscription(s), 0 licence(s) and 0 pack(s)." in out.getvalue()
