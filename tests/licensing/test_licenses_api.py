"""Portal licence endpoints: shapes, rules and refusals (which change nothing)."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from licensing.models import Activation, License, LicenseSource, LicenseStatus, Pack, Tier
from tests.accounts.factories import AgencyFactory, ResellerFactory, UserFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import (
    ActivationFactory,
    LicenseFactory,
    PackFactory,
    ProductFactory,
    SubscriptionFactory,
)
from tests.streaming import streamed_json

pytestmark = pytest.mark.django_db

LICENSES = "/api/v1/portal/licenses"
KEY = re.compile(r"^EMP(-[ABCDEFGHJKLMNPRSTUVWXYZ]{4}){5}$")


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def snapshot(license: License) -> dict:
    license.refresh_from_db()
    return {
        "tier": license.tier,
        "status": license.status,
        "expires_at": license.expires_at,
        "subscription_id": license.subscription_id,
        "domains": sorted(license.activations.values_list("domain", flat=True)),
    }


# --- List -------------------------------------------------------------------------------------


def test_list_shape_and_order(client_for):
    owner = UserFactory()
    product = ProductFactory(name="Theme", slug="theme")
    older = LicenseFactory(owner=owner, product=product, created_at=timezone.now() - timedelta(1))
    newer = LicenseFactory(owner=owner, product=product, source=LicenseSource.NFR)
    activation = ActivationFactory(license=older, domain="shop.example.com")
    LicenseFactory()  # someone else's

    response = client_for(owner).get(LICENSES)
    assert response.status_code == 200
    body = streamed_json(response)
    assert [item["id"] for item in body] == [newer.pk, older.pk]
    assert body[1] == {
        "id": older.pk,
        "license_key": older.license_key,
        "product": {"id": product.pk, "name": "Theme", "slug": "theme"},
        "tier": "starter",
        "status": "active",
        "source": "individual",
        "expires_at": iso(older.expires_at),
        "activations": [
            {"domain": "shop.example.com", "activated_at": iso(activation.activated_at)}
        ],
        "customer_id": None,
        "created_at": iso(older.created_at),
    }
    assert body[0]["source"] == "nfr"


def test_partner_sees_its_sub_client_licences(client_for):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    own = LicenseFactory(owner=reseller)
    assigned = LicenseFactory(owner=reseller, customer=customer)
    body = streamed_json(client_for(reseller).get(LICENSES))
    assert {item["id"] for item in body} == {own.pk, assigned.pk}
    assert {item["id"]: item["customer_id"] for item in body}[assigned.pk] == customer.pk


def test_filters_by_status_source_and_search(client_for):
    owner = UserFactory()
    active = LicenseFactory(owner=owner, license_key="EMP-AAAA-BBBB-CCCC-DDDD-EEEE")
    revoked = LicenseFactory(owner=owner, status=LicenseStatus.REVOKED)
    lapsed = LicenseFactory(owner=owner, expires_at=timezone.now() - timedelta(days=1))
    expired = LicenseFactory(owner=owner, status=LicenseStatus.EXPIRED, source=LicenseSource.NFR)
    ActivationFactory(license=revoked, domain="shop.example.org")
    client = client_for(owner)

    def ids(query):
        response = client.get(LICENSES, query)
        assert response.status_code == 200
        return {item["id"] for item in streamed_json(response)}

    assert ids({"status": "active"}) == {active.pk}
    assert ids({"status": "revoked"}) == {revoked.pk}
    # An active licence past its expiry is expired before the expiry task writes it down.
    assert ids({"status": "expired"}) == {lapsed.pk, expired.pk}
    assert ids({"source": "nfr"}) == {expired.pk}
    assert ids({"search": "bbbb-cccc"}) == {active.pk}
    assert ids({"search": "SHOP.example"}) == {revoked.pk}
    assert ids({"search": "nothing-like-it"}) == set()
    lapsed_body = streamed_json(client.get(LICENSES, {"status": "expired"}))
    assert {item["status"] for item in lapsed_body} == {"expired"}


@pytest.mark.parametrize("query", [{"status": "deleted"}, {"source": "gift"}])
def test_unknown_filter_values_are_422(client_for, query):
    response = client_for(UserFactory()).get(LICENSES, query)
    assert response.status_code == 422
    assert set(response.json()["errors"]) == set(query)


# --- Create -----------------------------------------------------------------------------------


def test_create_defaults_to_starter_and_one_year(client_for, events):
    owner = UserFactory()
    product = ProductFactory(slug="theme")
    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    with time_machine.travel(now, tick=False):
        response = client_for(owner).post(LICENSES, {"product_id": product.pk}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"id", "license_key", "tier", "status", "expires_at"}
    assert KEY.match(body["license_key"])
    assert body["tier"] == "starter"
    assert body["status"] == "active"
    assert body["expires_at"] == "2027-03-10T12:00:00Z"
    license = License.objects.get(pk=body["id"])
    assert (license.owner, license.source, license.customer) == (owner, "individual", None)
    assert events == [
        (
            owner,
            "license.created",
            {
                "license_id": license.pk,
                "license_key": license.license_key,
                "tier": "starter",
                "product_slug": "theme",
                "expires_at": "2027-03-10T12:00:00+00:00",
            },
        )
    ]


def test_create_with_expiry_tier_and_customer(client_for):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    SubscriptionFactory(owner=reseller)
    expires = timezone.now().replace(microsecond=0) + timedelta(days=90)
    response = client_for(reseller).post(
        LICENSES,
        {
            "product_id": ProductFactory().pk,
            "tier": "business",
            "expires_at": iso(expires),
            "customer_id": customer.pk,
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["tier"] == "business"
    assert response.json()["expires_at"] == iso(expires)
    assert License.objects.get().customer == customer


def test_leap_day_expiry_moves_to_28_february():
    from licensing.dates import add_years

    assert add_years(datetime(2028, 2, 29, 9, tzinfo=UTC)) == datetime(2029, 2, 28, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "product_id"),
        ({"product_id": "x"}, "product_id"),
        ({"product_id": 999999}, "product_id"),
        ({"tier": "gold"}, "tier"),
        ({"expires_at": "2001-01-01T00:00:00Z"}, "expires_at"),
        ({"expires_at": "2200-01-01T00:00:00Z"}, "expires_at"),
        ({"expires_at": "soon"}, "expires_at"),
    ],
)
def test_create_refuses_invalid_values_with_422(client_for, body, field):
    product = ProductFactory()
    payload = {"product_id": product.pk, **body}
    if body == {}:
        payload = {}
    response = client_for(UserFactory()).post(LICENSES, payload, format="json")
    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert License.objects.count() == 0


def test_inactive_product_cannot_be_licensed(client_for):
    product = ProductFactory(is_active=False)
    response = client_for(UserFactory()).post(LICENSES, {"product_id": product.pk}, format="json")
    assert response.status_code == 422
    assert License.objects.count() == 0


def test_developer_may_not_name_a_customer(client_for):
    customer = ClientFactory()
    response = client_for(UserFactory()).post(
        LICENSES, {"product_id": ProductFactory().pk, "customer_id": customer.pk}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["code"] == "partner_account_required"
    assert License.objects.count() == 0


def test_partner_may_not_name_another_partners_client(client_for):
    theirs = ClientFactory(owner=ResellerFactory())
    response = client_for(ResellerFactory()).post(
        LICENSES, {"product_id": ProductFactory().pk, "customer_id": theirs.pk}, format="json"
    )
    assert response.status_code == 404
    assert response.json()["code"] == "client_not_found"
    assert License.objects.count() == 0


def test_business_tier_needs_a_current_business_bundle(client_for):
    reseller = ResellerFactory()
    SubscriptionFactory(owner=reseller, current_period_end=timezone.now() - timedelta(days=1))
    response = client_for(reseller).post(
        LICENSES, {"product_id": ProductFactory().pk, "tier": "business"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "business_bundle_required"
    assert "Business Bundle" in response.json()["detail"]
    assert License.objects.count() == 0


def test_a_customers_subscription_covers_only_that_customer(client_for):
    reseller = ResellerFactory()
    covered, other = ClientFactory(owner=reseller), ClientFactory(owner=reseller)
    subscription = SubscriptionFactory(owner=reseller, customer=covered)
    client = client_for(reseller)
    product = ProductFactory()
    ok = client.post(
        LICENSES,
        {"product_id": product.pk, "tier": "business", "customer_id": covered.pk},
        format="json",
    )
    assert ok.status_code == 201
    assert License.objects.get(pk=ok.json()["id"]).subscription == subscription
    for customer_id in (other.pk, None):
        refused = client.post(
            LICENSES,
            {"product_id": product.pk, "tier": "business", "customer_id": customer_id},
            format="json",
        )
        assert refused.status_code == 400
        assert refused.json()["code"] == "business_bundle_required"
    assert License.objects.count() == 1


def test_developer_licence_limit(client_for, settings):
    settings.LICENSE_LIMIT_DEVELOPER = 2
    developer = UserFactory()
    LicenseFactory(owner=developer)
    LicenseFactory(owner=developer, source=LicenseSource.NFR)  # not counted
    client = client_for(developer)
    product = ProductFactory()
    assert client.post(LICENSES, {"product_id": product.pk}, format="json").status_code == 201
    refused = client.post(LICENSES, {"product_id": product.pk}, format="json")
    assert refused.status_code == 400
    assert refused.json()["code"] == "license_limit_reached"
    assert "2" in refused.json()["detail"]
    assert License.objects.filter(owner=developer).count() == 3


def test_partners_have_no_licence_limit(client_for, settings):
    settings.LICENSE_LIMIT_DEVELOPER = 0
    response = client_for(AgencyFactory()).post(
        LICENSES, {"product_id": ProductFactory().pk}, format="json"
    )
    assert response.status_code == 201


# --- Usage and pack credits -------------------------------------------------------------------


def test_usage_for_a_developer_counts_every_licence_but_nfr(client_for, settings):
    settings.LICENSE_LIMIT_DEVELOPER = 10
    developer = UserFactory()
    LicenseFactory(owner=developer)
    LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    LicenseFactory(owner=developer, status=LicenseStatus.EXPIRED)
    LicenseFactory(owner=developer, source=LicenseSource.NFR)
    LicenseFactory()
    body = client_for(developer).get(f"{LICENSES}/usage").json()
    assert body == {"total_licenses": 3, "limit": 10, "remaining": 7}


@pytest.mark.parametrize("factory", [ResellerFactory, AgencyFactory])
def test_usage_for_partners_is_unlimited(client_for, factory):
    partner = factory()
    LicenseFactory(owner=partner, customer=ClientFactory(owner=partner))
    body = client_for(partner).get(f"{LICENSES}/usage").json()
    assert body == {"total_licenses": 1, "limit": -1, "remaining": -1}


def test_pack_credits_list_active_packs(client_for):
    reseller = ResellerFactory()
    first = PackFactory(owner=reseller, bundle="Reseller 10", size=10, used=3)
    second = PackFactory(owner=reseller, bundle="Reseller 50", size=50)
    PackFactory(owner=reseller, size=5, used=5, status="exhausted")
    PackFactory(owner=reseller, size=5, expires_at=timezone.now() - timedelta(days=1))
    PackFactory(size=100)  # another reseller's
    body = client_for(reseller).get(f"{LICENSES}/pack-credits").json()
    assert body == {
        "total_credits": 57,
        "packs": [
            {
                "pack_id": first.pk,
                "pack_size": 10,
                "bundle": "Reseller 10",
                "used": 3,
                "remaining": 7,
                "status": "active",
            },
            {
                "pack_id": second.pk,
                "pack_size": 50,
                "bundle": "Reseller 50",
                "used": 0,
                "remaining": 50,
                "status": "active",
            },
        ],
    }


def test_developer_pack_credits_are_empty(client_for):
    assert client_for(UserFactory()).get(f"{LICENSES}/pack-credits").json() == {
        "total_credits": 0,
        "packs": [],
    }


# --- Bulk create ------------------------------------------------------------------------------


def test_bulk_create_uses_pack_credits(client_for, events):
    reseller = ResellerFactory()
    customer = ClientFactory(owner=reseller)
    lapsing = PackFactory(
        owner=reseller, size=3, used=1, expires_at=timezone.now() + timedelta(days=5)
    )
    later = PackFactory(owner=reseller, size=10)
    product = ProductFactory(slug="seo")
    response = client_for(reseller).post(
        f"{LICENSES}/bulk",
        {"product_id": product.pk, "count": 5, "customer_id": customer.pk},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"count", "license_keys", "pack_credits_remaining"}
    assert body["count"] == 5
    assert body["pack_credits_remaining"] == 7
    assert len(set(body["license_keys"])) == 5
    assert all(KEY.match(key) for key in body["license_keys"])
    created = License.objects.filter(license_key__in=body["license_keys"])
    assert {(lic.source, lic.customer_id, lic.tier) for lic in created} == {
        ("bulk_pack", customer.pk, "starter")
    }
    lapsing.refresh_from_db()
    later.refresh_from_db()
    assert (lapsing.used, lapsing.status) == (3, "exhausted")  # the pack that lapses first
    assert (later.used, later.status) == (3, "active")
    assert [event for _account, event, _data in events] == ["license.created"] * 5
    assert {data["license_key"] for _a, _e, data in events} == set(body["license_keys"])


def test_bulk_create_with_too_few_credits_creates_nothing(client_for):
    reseller = ResellerFactory()
    pack = PackFactory(owner=reseller, size=10, used=6)
    response = client_for(reseller).post(
        f"{LICENSES}/bulk", {"product_id": ProductFactory().pk, "count": 7}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "insufficient_pack_credits"
    assert "needs 7 pack credits; the account has 4 (3 short)" in response.json()["detail"]
    pack.refresh_from_db()
    assert pack.used == 6
    assert License.objects.count() == 0


@pytest.mark.parametrize("count", [0, 101, -1, "ten"])
def test_bulk_count_must_be_1_to_100(client_for, count):
    reseller = ResellerFactory()
    PackFactory(owner=reseller, size=500)
    response = client_for(reseller).post(
        f"{LICENSES}/bulk", {"product_id": ProductFactory().pk, "count": count}, format="json"
    )
    assert response.status_code == 422
    assert "count" in response.json()["errors"]
    assert License.objects.count() == 0


def test_bulk_create_of_100_is_fine(client_for):
    reseller = ResellerFactory()
    PackFactory(owner=reseller, size=100)
    response = client_for(reseller).post(
        f"{LICENSES}/bulk", {"product_id": ProductFactory().pk, "count": 100}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["pack_credits_remaining"] == 0
    assert License.objects.count() == 100
    assert Pack.objects.get().status == "exhausted"


def test_bulk_business_needs_the_bundle_and_then_spends_nothing(client_for):
    reseller = ResellerFactory()
    pack = PackFactory(owner=reseller, size=10)
    response = client_for(reseller).post(
        f"{LICENSES}/bulk",
        {"product_id": ProductFactory().pk, "count": 2, "tier": "business"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["code"] == "business_bundle_required"
    pack.refresh_from_db()
    assert pack.used == 0


# --- Tier change ------------------------------------------------------------------------------


def test_tier_change_both_ways(client_for):
    reseller = ResellerFactory()
    subscription = SubscriptionFactory(owner=reseller)
    license = LicenseFactory(owner=reseller)
    client = client_for(reseller)
    up = client.patch(f"{LICENSES}/{license.pk}", {"tier": "business"}, format="json")
    assert up.status_code == 200
    assert up.json() == {
        "success": True,
        "message": f"License {license.license_key} moved from starter to business.",
        "old_tier": "starter",
        "new_tier": "business",
    }
    assert snapshot(license)["tier"] == "business"
    assert license.subscription == subscription
    assert license.status == "active"
    down = client.patch(f"{LICENSES}/{license.pk}", {"tier": "starter"}, format="json")
    assert down.json()["old_tier"] == "business"
    assert down.json()["new_tier"] == "starter"
    assert snapshot(license) == {
        "tier": "starter",
        "status": "active",
        "expires_at": license.expires_at,
        "subscription_id": None,
        "domains": [],
    }


def test_tier_change_to_business_without_bundle_is_refused(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    before = snapshot(license)
    response = client_for(developer).patch(
        f"{LICENSES}/{license.pk}", {"tier": "business"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "business_bundle_required"
    assert snapshot(license) == before


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"status": LicenseStatus.REVOKED}, "license_revoked"),
        ({"status": LicenseStatus.EXPIRED}, "license_expired"),
    ],
)
def test_tier_change_of_an_inactive_licence_is_refused(client_for, fields, code):
    reseller = ResellerFactory()
    SubscriptionFactory(owner=reseller)
    license = LicenseFactory(owner=reseller, **fields)
    before = snapshot(license)
    response = client_for(reseller).patch(
        f"{LICENSES}/{license.pk}", {"tier": "business"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert snapshot(license) == before


def test_tier_change_to_the_same_tier_changes_nothing(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    response = client_for(developer).patch(
        f"{LICENSES}/{license.pk}", {"tier": "starter"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["old_tier"] == response.json()["new_tier"] == "starter"


def test_tier_change_validates_the_tier(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    response = client_for(developer).patch(
        f"{LICENSES}/{license.pk}", {"tier": "platinum"}, format="json"
    )
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["tier"]


# --- Revoke, reactivate, delete ---------------------------------------------------------------


def test_revoke_deactivates_every_domain_and_emits_revoked(client_for, events):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    ActivationFactory(license=license, domain="b.example.com")
    ActivationFactory(license=license, domain="a.example.com")
    response = client_for(developer).delete(f"{LICENSES}/{license.pk}")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": f"License {license.license_key} revoked; deactivated on 2 domains.",
    }
    license.refresh_from_db()
    assert license.status == "revoked"
    assert license.revoked_at is not None
    assert Activation.objects.count() == 0
    assert events == [
        (
            developer,
            "license.revoked",
            {
                "license_key": license.license_key,
                "deactivated_domains": ["a.example.com", "b.example.com"],
            },
        )
    ]


def test_revoking_twice_is_refused(client_for, events):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    response = client_for(developer).delete(f"{LICENSES}/{license.pk}")
    assert response.status_code == 400
    assert response.json()["code"] == "license_not_active"
    assert events == []


def test_reactivate_a_revoked_unexpired_licence(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    response = client_for(developer).post(f"{LICENSES}/{license.pk}/reactivate")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": f"License {license.license_key} is active again.",
    }
    license.refresh_from_db()
    assert (license.status, license.revoked_at) == ("active", None)


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"status": LicenseStatus.ACTIVE}, "license_not_revoked"),
        ({"status": LicenseStatus.EXPIRED}, "license_not_revoked"),
        (
            {"status": LicenseStatus.REVOKED, "expires_at": timezone.now() - timedelta(days=1)},
            "license_expired",
        ),
    ],
)
def test_reactivate_refusals(client_for, fields, code):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, **fields)
    before = snapshot(license)
    response = client_for(developer).post(f"{LICENSES}/{license.pk}/reactivate")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["detail"]
    assert snapshot(license) == before


def test_reactivate_business_needs_a_current_bundle(client_for):
    reseller = ResellerFactory()
    license = LicenseFactory(owner=reseller, tier=Tier.BUSINESS, status=LicenseStatus.REVOKED)
    client = client_for(reseller)
    response = client.post(f"{LICENSES}/{license.pk}/reactivate")
    assert response.status_code == 400
    assert response.json()["code"] == "business_bundle_required"
    assert snapshot(license)["status"] == "revoked"
    subscription = SubscriptionFactory(owner=reseller)
    assert client.post(f"{LICENSES}/{license.pk}/reactivate").status_code == 200
    license.refresh_from_db()
    assert license.subscription == subscription


def test_permanent_delete_of_a_revoked_never_invoiced_licence(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    response = client_for(developer).delete(f"{LICENSES}/{license.pk}/permanent")
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": f"License {license.license_key} deleted permanently.",
    }
    assert not License.objects.filter(pk=license.pk).exists()


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"status": LicenseStatus.ACTIVE}, "license_not_revoked"),
        ({"status": LicenseStatus.EXPIRED}, "license_not_revoked"),
        ({"status": LicenseStatus.REVOKED, "invoiced_at": timezone.now()}, "license_invoiced"),
    ],
)
def test_permanent_delete_refusals(client_for, fields, code):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, **fields)
    response = client_for(developer).delete(f"{LICENSES}/{license.pk}/permanent")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert License.objects.filter(pk=license.pk).exists()


def test_an_expired_licence_can_be_revoked_then_deleted(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer, status=LicenseStatus.EXPIRED)
    client = client_for(developer)
    assert client.delete(f"{LICENSES}/{license.pk}").status_code == 200
    assert client.delete(f"{LICENSES}/{license.pk}/permanent").status_code == 200
    assert not License.objects.exists()


def test_get_one_licence(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    body = client_for(developer).get(f"{LICENSES}/{license.pk}").json()
    assert body["id"] == license.pk
    assert body["license_key"] == license.license_key


# --- Bulk revoke and delete -------------------------------------------------------------------


def test_bulk_revoke_counts_what_it_changed(client_for, events):
    developer = UserFactory()
    active = LicenseFactory(owner=developer)
    expired = LicenseFactory(owner=developer, status=LicenseStatus.EXPIRED)
    revoked = LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    foreign = LicenseFactory()
    ActivationFactory(license=active, domain="one.example.com")
    response = client_for(developer).post(
        f"{LICENSES}/bulk-revoke",
        {"ids": [active.pk, expired.pk, revoked.pk, foreign.pk, 999999, active.pk]},
        format="json",
    )
    assert response.status_code == 200
    assert response.json() == {"revoked": 2}
    assert snapshot(foreign)["status"] == "active"
    assert {lic.pk for lic in License.objects.filter(status="revoked")} == {
        active.pk,
        expired.pk,
        revoked.pk,
    }
    assert sorted(
        (e, d["license_key"], tuple(d["deactivated_domains"])) for _a, e, d in events
    ) == sorted(
        [
            ("license.revoked", active.license_key, ("one.example.com",)),
            ("license.revoked", expired.license_key, ()),
        ]
    )


def test_bulk_ids_are_at_most_100(client_for):
    developer = UserFactory()
    license = LicenseFactory(owner=developer)
    client = client_for(developer)
    ids = [license.pk, *range(10_000, 10_100)]
    for path in ("bulk-revoke", "bulk-delete"):
        response = client.post(f"{LICENSES}/{path}", {"ids": ids}, format="json")
        assert response.status_code == 422
        assert "ids" in response.json()["errors"]
    assert snapshot(license)["status"] == "active"
    ok = client.post(f"{LICENSES}/bulk-revoke", {"ids": ids[:100]}, format="json")
    assert ok.json() == {"revoked": 1}


@pytest.mark.parametrize("body", [{}, {"ids": "1,2"}, {"ids": [1, "x"]}, {"ids": [0]}])
def test_bulk_ids_must_be_a_list_of_ids(client_for, body):
    response = client_for(UserFactory()).post(f"{LICENSES}/bulk-revoke", body, format="json")
    assert response.status_code == 422


def test_bulk_delete_counts_what_it_deleted(client_for):
    developer = UserFactory()
    deletable = LicenseFactory(owner=developer, status=LicenseStatus.REVOKED)
    invoiced = LicenseFactory(
        owner=developer, status=LicenseStatus.REVOKED, invoiced_at=timezone.now()
    )
    active = LicenseFactory(owner=developer)
    foreign = LicenseFactory(status=LicenseStatus.REVOKED)
    response = client_for(developer).post(
        f"{LICENSES}/bulk-delete",
        {"ids": [deletable.pk, invoiced.pk, active.pk, foreign.pk]},
        format="json",
    )
    assert response.json() == {"deleted": 1}
    assert set(License.objects.values_list("pk", flat=True)) == {invoiced.pk, active.pk, foreign.pk}


def test_bulk_with_no_ids_changes_nothing(client_for):
    response = client_for(UserFactory()).post(f"{LICENSES}/bulk-revoke", {"ids": []}, format="json")
    assert response.json() == {"revoked": 0}


# --- Products ---------------------------------------------------------------------------------


def test_products_list_what_can_be_licensed(client_for):
    product = ProductFactory(name="Alpha", slug="alpha", description="A.")
    ProductFactory(name="Hidden", is_active=False)
    body = client_for(UserFactory()).get("/api/v1/portal/products").json()
    assert body == [
        {
            "id": product.pk,
            "name": "Alpha",
            "slug": "alpha",
            "description": "A.",
            "tiers": [
                {"tier": "starter", "yearly_price": "50.00", "max_domains": 1},
                {"tier": "business", "yearly_price": "200.00", "max_domains": 3},
            ],
        }
    ]
