"""Updates, components and signed downloads of the public licence API."""

from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.core.files.base import ContentFile
from django.utils import timezone

from licensing.models import LicenseStatus, Release, Tier
from licensing.services.lifecycle import licenses_revoke
from licensing.services.releases import release_save
from tests.licensing.factories import (
    ActivationFactory,
    ComponentFactory,
    LicenseFactory,
    ProductFactory,
    ReleaseFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def product():
    product = ProductFactory(name="Theme", slug="theme")
    ReleaseFactory(
        product=product, version="1.0.0", released_at=timezone.now() - timedelta(days=60)
    )
    ReleaseFactory(
        product=product,
        version="1.10.0",
        changelog="Ten.",
        released_at=timezone.now() - timedelta(days=1),
    )
    ReleaseFactory(product=product, version="1.9.2", released_at=timezone.now() - timedelta(days=5))
    return product


@pytest.fixture
def license(product):
    license = LicenseFactory(product=product)
    ActivationFactory(license=license, domain="shop.example.com")
    return license


def post(client, path, body):
    return client.post(f"/api/v1/{path}", body, format="json")


# --- Update check and info --------------------------------------------------------------------


def test_update_check_compares_versions_not_dates(api_client, license):
    body = post(api_client, "updates/check", {"license_key": license.license_key, "version": "1.9"})
    assert body.status_code == 200
    latest = Release.objects.get(version="1.10.0")
    assert body.json() == {
        "update_available": True,
        "installed_version": "1.9",
        "latest_version": "1.10.0",
        "released_at": latest.released_at.isoformat().replace("+00:00", "Z"),
        "changelog": "Ten.",
        "license_status": "active",
        "download_allowed": True,
    }


def test_up_to_date_copy(api_client, license):
    body = post(
        api_client, "updates/check", {"license_key": license.license_key, "version": "1.10"}
    ).json()
    assert (body["update_available"], body["changelog"]) == (False, None)


def test_expired_copy_learns_of_the_update_but_may_not_download(api_client, product):
    license = LicenseFactory(product=product, status=LicenseStatus.EXPIRED)
    body = post(
        api_client, "updates/check", {"license_key": license.license_key, "version": "1.0.0"}
    ).json()
    assert (body["update_available"], body["license_status"], body["download_allowed"]) == (
        True,
        "expired",
        False,
    )


def test_product_without_releases(api_client):
    license = LicenseFactory()
    body = post(
        api_client, "updates/check", {"license_key": license.license_key, "version": "1.0"}
    ).json()
    assert (body["update_available"], body["latest_version"]) == (False, None)


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"license_key": "EMP-NONE", "version": "1.0"}, 404),
        ({"version": "1.0"}, 422),
        ({"license_key": "{key}", "version": "not a version"}, 422),
    ],
)
def test_update_check_refusals(api_client, license, body, status):
    body = {k: v.replace("{key}", license.license_key) for k, v in body.items()}
    assert post(api_client, "updates/check", body).status_code == status


def test_update_info_lists_newer_releases(api_client, license, product):
    body = post(
        api_client, "updates/info", {"license_key": license.license_key, "version": "1.0.0"}
    ).json()
    latest = Release.objects.get(version="1.10.0")
    assert body["product"] == {"id": product.pk, "name": "Theme", "slug": "theme"}
    assert body["latest_version"] == "1.10.0"
    assert body["file_size"] == latest.file_size
    assert body["changelog"] == "Ten."
    assert [r["version"] for r in body["releases"]] == ["1.10.0", "1.9.2"]
    everything = post(api_client, "updates/info", {"license_key": license.license_key}).json()
    assert [r["version"] for r in everything["releases"]] == ["1.10.0", "1.9.2", "1.0.0"]


# --- Downloads --------------------------------------------------------------------------------


def download_url(client, license, **extra):
    response = post(
        client,
        "updates/download",
        {"license_key": license.license_key, "domain": "shop.example.com", **extra},
    )
    assert response.status_code == 200, response.json()
    return response.json()


def test_download_url_serves_the_file_in_chunks(api_client, license, settings):
    release = Release.objects.get(version="1.10.0")
    release.file.save("big.zip", ContentFile(b"x" * 100_000), save=True)
    release_save(release=release)
    body = download_url(api_client, license)
    assert body["version"] == "1.10.0"
    assert body["file_size"] == 100_000
    assert body["sha256"] == release.sha256
    assert body["url"].startswith(f"{settings.FRONTEND_URL}/api/v1/downloads/")
    response = api_client.get(body["url"].removeprefix(settings.FRONTEND_URL))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="theme-1.10.0.zip"'
    chunks = list(response.streaming_content)
    assert len(chunks) > 1  # streamed, never read whole into memory
    assert b"".join(chunks) == b"x" * 100_000


def test_a_given_version_can_be_downloaded(api_client, license):
    assert download_url(api_client, license, version="1.0.0")["version"] == "1.0.0"
    response = post(
        api_client,
        "updates/download",
        {"license_key": license.license_key, "domain": "shop.example.com", "version": "7.0"},
    )
    assert response.status_code == 404
    assert response.json()["code"] == "release_not_found"


@pytest.mark.parametrize(
    ("fields", "domain", "code"),
    [
        ({"status": LicenseStatus.REVOKED}, "shop.example.com", "license_revoked"),
        ({"status": LicenseStatus.EXPIRED}, "shop.example.com", "license_expired"),
        ({}, "elsewhere.example.com", "domain_not_activated"),
    ],
)
def test_download_refusals(api_client, license, fields, domain, code):
    for name, value in fields.items():
        setattr(license, name, value)
    license.save()
    response = post(
        api_client, "updates/download", {"license_key": license.license_key, "domain": domain}
    )
    assert response.status_code == 403
    assert response.json()["code"] == code


def test_download_url_expires(api_client, license, settings):
    settings.LICENSE_DOWNLOAD_URL_SECONDS = 300
    url = download_url(api_client, license)["url"].removeprefix(settings.FRONTEND_URL)
    with time_machine.travel(timezone.now() + timedelta(seconds=301)):
        response = api_client.get(url)
    assert response.status_code == 403
    assert response.json()["code"] == "download_link_expired"


def test_a_licence_revoked_after_the_url_was_issued_downloads_nothing(api_client, license):
    url = download_url(api_client, license)["url"].removeprefix(settings.FRONTEND_URL)
    licenses_revoke(queryset=type(license).objects.filter(pk=license.pk))
    response = api_client.get(url)
    assert response.status_code == 403
    assert response.json()["code"] == "license_revoked"


def test_a_tampered_url_is_404(api_client, license):
    url = download_url(api_client, license)["url"].removeprefix(settings.FRONTEND_URL)
    response = api_client.get(url[:-3] + "abc")
    assert response.status_code == 404
    assert response.json()["code"] == "download_not_found"


# --- Components -------------------------------------------------------------------------------


@pytest.fixture
def components(product):
    return {
        "slider": ComponentFactory(product=product, slug="slider", name="Slider", version="1.2.0"),
        "b2b": ComponentFactory(
            product=product, slug="b2b", name="B2B", version="2.0.0", min_tier=Tier.BUSINESS
        ),
    }


def test_component_list_and_available(api_client, license, components):
    body = post(api_client, "components/list", {"license_key": license.license_key}).json()
    assert body["tier"] == "starter"
    assert [(c["slug"], c["min_tier"], c["available"]) for c in body["components"]] == [
        ("b2b", "business", False),
        ("slider", "starter", True),
    ]
    available = post(
        api_client, "components/available", {"license_key": license.license_key}
    ).json()
    assert [c["slug"] for c in available["components"]] == ["slider"]
    license.tier = Tier.BUSINESS
    license.save()
    available = post(
        api_client, "components/available", {"license_key": license.license_key}
    ).json()
    assert [c["slug"] for c in available["components"]] == ["b2b", "slider"]


def test_component_check(api_client, license, components):
    body = post(
        api_client,
        "components/check",
        {
            "license_key": license.license_key,
            "components": {"slider": "1.1.9", "b2b": "2.0.0", "gone": "1.0"},
        },
    ).json()
    assert body == {
        "components": [
            {
                "slug": "b2b",
                "installed_version": "2.0.0",
                "latest_version": "2.0.0",
                "update_available": False,
                "available": False,
            },
            {
                "slug": "slider",
                "installed_version": "1.1.9",
                "latest_version": "1.2.0",
                "update_available": True,
                "available": True,
            },
        ],
        "unknown": ["gone"],
    }


def test_component_check_validates_versions(api_client, license, components):
    response = post(
        api_client,
        "components/check",
        {"license_key": license.license_key, "components": {"slider": "latest!"}},
    )
    assert response.status_code == 422
    assert "components.slider" in response.json()["errors"]


def test_component_download(api_client, license, components):
    body = {"license_key": license.license_key, "domain": "shop.example.com", "slug": "slider"}
    response = post(api_client, "components/download", body)
    assert response.status_code == 200
    url = response.json()["url"].removeprefix(settings.FRONTEND_URL)
    fetched = api_client.get(url)
    assert fetched.status_code == 200
    assert b"".join(fetched.streaming_content) == b"component" * 50
    assert fetched["Content-Disposition"] == 'attachment; filename="theme-slider-1.2.0.zip"'


def test_component_download_refusals(api_client, license, components):
    base = {"license_key": license.license_key, "domain": "shop.example.com"}
    tier = post(api_client, "components/download", {**base, "slug": "b2b"})
    assert tier.status_code == 403
    assert tier.json()["code"] == "tier_required"
    assert "business" in tier.json()["detail"]
    missing = post(api_client, "components/download", {**base, "slug": "nope"})
    assert missing.status_code == 404
    assert missing.json()["code"] == "component_not_found"
    license.status = LicenseStatus.REVOKED
    license.save()
    revoked = post(api_client, "components/download", {**base, "slug": "slider"})
    assert revoked.status_code == 403
    assert revoked.json()["code"] == "license_revoked"


def test_release_save_records_size_and_digest(product):
    import hashlib

    release = Release(product=product, version="2.0.0", file=ContentFile(b"abc", name="r.zip"))
    release_save(release=release)
    release.refresh_from_db()
    assert release.file_size == 3
    assert release.sha256 == hashlib.sha256(b"abc").hexdigest()
