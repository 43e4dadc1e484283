"""The public licence API: activate, deactivate, verify (signed), the public key, limits."""

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from common.errors import ValidationFailed
from licensing import signing
from licensing.domains import is_development_host, normalize_domain
from licensing.keys import KEY_PATTERN, generate_license_key
from licensing.models import Activation, LicenseStatus, Tier
from tests.licensing.factories import ActivationFactory, LicenseFactory, ProductFactory

pytestmark = pytest.mark.django_db

BASE = "/api/v1/licenses"


def post(client, endpoint, body, **extra):
    return client.post(f"{BASE}/{endpoint}", body, format="json", **extra)


# --- Keys and domains -------------------------------------------------------------------------


def test_license_keys_have_the_documented_shape():
    keys = {generate_license_key() for _ in range(2000)}
    assert len(keys) == 2000
    for key in keys:
        assert KEY_PATTERN.match(key), key
        assert not set(key) & set("IOQ01")


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("example.com", "example.com"),
        ("  Shop.Example.COM  ", "shop.example.com"),
        ("https://Shop.Example.com:8443/store?x=1#top", "shop.example.com"),
        ("http://user:pw@example.com/", "example.com"),
        ("//cdn.example.com/a", "cdn.example.com"),
        ("example.com.", "example.com"),
        ("www.example.com", "www.example.com"),
        ("localhost:8000", "localhost"),
        ("127.0.0.1:8080", "127.0.0.1"),
        ("[::1]:8000", "::1"),
        ("bücher.example", "xn--bcher-kva.example"),
    ],
)
def test_domain_normalisation(raw, normalised):
    assert normalize_domain(raw) == normalised


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "https://", "exa mple.com", "-bad.com", "a..b", "x" * 64 + ".com", "1.2.3.999"],
)
def test_invalid_domains_are_refused(raw):
    with pytest.raises(ValidationFailed):
        normalize_domain(raw)


@pytest.mark.parametrize(
    ("domain", "development"),
    [
        ("localhost", True),
        ("127.0.0.1", True),
        ("::1", True),
        ("10.1.2.3", True),
        ("192.168.0.10", True),
        ("shop.local", True),
        ("shop.test", True),
        ("site.localhost", True),
        ("staging.example.com", True),
        ("shop.dev.example.com", True),
        ("stage.example.co", True),
        ("example.com", False),
        ("dev.com", False),
        ("staging.com", False),
        ("mystaging.example.com", False),
        ("8.8.8.8", False),
    ],
)
def test_development_hosts(domain, development):
    assert is_development_host(domain) is development


# --- Activate ---------------------------------------------------------------------------------


def test_activate(api_client, events):
    product = ProductFactory(name="Theme", slug="theme", starter_max_domains=2)
    license = LicenseFactory(product=product)
    response = post(
        api_client,
        "activate",
        {"license_key": license.license_key, "domain": "https://Shop.Example.com/x"},
    )
    assert response.status_code == 200
    body = response.json()
    activation = Activation.objects.get()
    assert body == {
        "success": True,
        "result": "activated",
        "license_key": license.license_key,
        "domain": "shop.example.com",
        "development_host": False,
        "activated_at": activation.activated_at.isoformat().replace("+00:00", "Z"),
        "activations_used": 1,
        "activations_limit": 2,
        "activations_left": 1,
        "license": {
            "status": "active",
            "tier": "starter",
            "expires_at": license.expires_at.isoformat().replace("+00:00", "Z"),
            "product": {"id": product.pk, "name": "Theme", "slug": "theme"},
        },
    }
    assert events == [
        (
            license.owner,
            "license.activated",
            {
                "license_key": license.license_key,
                "domain": "shop.example.com",
                "tier": "starter",
                "product_slug": "theme",
            },
        )
    ]


def test_activating_again_changes_nothing(api_client, events):
    license = LicenseFactory()
    body = {"license_key": license.license_key.lower(), "domain": "example.com"}
    assert post(api_client, "activate", body).json()["result"] == "activated"
    again = post(api_client, "activate", {**body, "domain": "http://EXAMPLE.com/"})
    assert again.status_code == 200
    assert again.json()["result"] == "already_activated"
    assert Activation.objects.count() == 1
    assert [event for _a, event, _d in events] == ["license.activated"]


def test_activation_beyond_the_tier_limit_is_refused(api_client, events):
    license = LicenseFactory(product=ProductFactory(starter_max_domains=1))
    ActivationFactory(license=license, domain="first.example.com")
    response = post(
        api_client, "activate", {"license_key": license.license_key, "domain": "second.example.com"}
    )
    assert response.status_code == 403
    assert response.json()["code"] == "too_many_domains"
    assert "1 of its 1 domain" in response.json()["detail"]
    assert "first.example.com" in response.json()["detail"]
    assert list(Activation.objects.values_list("domain", flat=True)) == ["first.example.com"]
    assert events == []


def test_business_tier_allows_more_domains(api_client):
    product = ProductFactory(starter_max_domains=1, business_max_domains=3)
    license = LicenseFactory(product=product, tier=Tier.BUSINESS)
    for n in range(3):
        body = {"license_key": license.license_key, "domain": f"s{n}.example.com"}
        assert post(api_client, "activate", body).status_code == 200
    body = {"license_key": license.license_key, "domain": "s3.example.com"}
    assert post(api_client, "activate", body).json()["code"] == "too_many_domains"


def test_development_hosts_do_not_count(api_client):
    license = LicenseFactory(product=ProductFactory(starter_max_domains=1))
    for domain in ("localhost:8080", "shop.test", "staging.example.com", "example.com"):
        response = post(
            api_client, "activate", {"license_key": license.license_key, "domain": domain}
        )
        assert response.status_code == 200, (domain, response.json())
    last = response.json()
    assert (last["activations_used"], last["activations_left"]) == (1, 0)
    assert Activation.objects.filter(is_development=True).count() == 3
    refused = post(
        api_client, "activate", {"license_key": license.license_key, "domain": "b.example.com"}
    )
    assert refused.status_code == 403


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"status": LicenseStatus.REVOKED}, "license_revoked"),
        ({"status": LicenseStatus.EXPIRED}, "license_expired"),
        ({"expires_at": timezone.now() - timedelta(minutes=1)}, "license_expired"),
    ],
)
def test_revoked_or_expired_licences_cannot_be_activated(api_client, fields, code, events):
    license = LicenseFactory(**fields)
    response = post(api_client, "activate", {"license_key": license.license_key, "domain": "a.com"})
    assert response.status_code == 403
    assert response.json()["code"] == code
    assert response.json()["detail"]
    assert Activation.objects.count() == 0
    assert events == []


def test_unknown_key_is_404(api_client):
    response = post(api_client, "activate", {"license_key": "EMP-NOPE", "domain": "a.com"})
    assert response.status_code == 404
    assert response.json()["code"] == "license_not_found"


def test_activation_for_another_product_is_refused(api_client):
    license = LicenseFactory(product=ProductFactory(slug="theme"))
    response = post(
        api_client,
        "activate",
        {"license_key": license.license_key, "domain": "a.com", "product": "seo"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "product_mismatch"
    assert Activation.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [{}, {"license_key": "EMP-X"}, {"domain": "a.com"}, {"license_key": "EMP-X", "domain": "a b"}],
)
def test_activate_validates_its_input(api_client, body):
    response = post(api_client, "activate", body)
    assert response.status_code == 422
    assert response.json()["errors"]


def test_a_body_without_content_type_is_415(api_client):
    response = api_client.generic("POST", f"{BASE}/activate", b'{"a": 1}', content_type="")
    assert response.status_code == 415


# --- Deactivate -------------------------------------------------------------------------------


def test_deactivate_frees_the_slot(api_client, events):
    license = LicenseFactory(product=ProductFactory(starter_max_domains=1))
    ActivationFactory(license=license, domain="old.example.com")
    response = post(
        api_client, "deactivate", {"license_key": license.license_key, "domain": "OLD.example.com"}
    )
    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "License deactivated on old.example.com.",
        "license_key": license.license_key,
        "domain": "old.example.com",
    }
    assert events == [
        (
            license.owner,
            "license.deactivated",
            {"license_key": license.license_key, "domain": "old.example.com"},
        )
    ]
    new = post(api_client, "activate", {"license_key": license.license_key, "domain": "new.com"})
    assert new.status_code == 200


def test_deactivating_a_domain_that_is_not_active_is_404(api_client, events):
    license = LicenseFactory()
    ActivationFactory(license=license, domain="kept.example.com")
    response = post(
        api_client, "deactivate", {"license_key": license.license_key, "domain": "other.com"}
    )
    assert response.status_code == 404
    assert response.json()["code"] == "domain_not_activated"
    assert Activation.objects.count() == 1
    assert events == []


# --- Verify -----------------------------------------------------------------------------------


def verify(client, license_key, domain, **extra):
    response = post(client, "verify", {"license_key": license_key, "domain": domain, **extra})
    assert response.status_code == 200, response.json()
    return response.json()


def check_signature(client, body) -> dict:
    """Verify the signature with the published key; answers the signed payload."""
    published = client.get(f"{BASE}/public-key").json()
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(published["public_key"]))
    payload = base64.b64decode(body["signed"]["payload"])
    public.verify(base64.b64decode(body["signed"]["signature"]), payload)
    assert body["signed"]["key_id"] == published["key_id"]
    assert body["signed"]["algorithm"] == "ed25519"
    return json.loads(payload)


def test_verify_a_valid_licence(api_client):
    product = ProductFactory(name="Theme", slug="theme")
    expires = timezone.now() + timedelta(days=200)
    license = LicenseFactory(product=product, expires_at=expires)
    activation = ActivationFactory(license=license, domain="shop.example.com")
    now = datetime.now(UTC)
    with time_machine.travel(now, tick=False):
        body = verify(api_client, license.license_key.lower(), "https://shop.example.com/")
    assert body["valid"] is True
    assert body["result"] == "valid"
    signed = check_signature(api_client, body)
    assert signed == {key: value for key, value in body.items() if key != "signed"}
    assert signed == {
        "valid": True,
        "result": "valid",
        "license_key": license.license_key,
        "domain": "shop.example.com",
        "status": "active",
        "tier": "starter",
        "expires_at": expires.isoformat(),
        "product": {"id": product.pk, "name": "Theme", "slug": "theme"},
        "activated_at": activation.activated_at.isoformat(),
        "development_host": False,
        "issued_at": now.isoformat(),
        "valid_until": (now + timedelta(hours=72)).isoformat(),
    }


def test_a_verdict_is_trusted_no_longer_than_the_licence(api_client):
    expires = timezone.now() + timedelta(hours=5)
    license = LicenseFactory(expires_at=expires)
    ActivationFactory(license=license, domain="a.com")
    assert verify(api_client, license.license_key, "a.com")["valid_until"] == expires.isoformat()


@pytest.mark.parametrize(
    ("setup", "result"),
    [
        ("unknown", "not_found"),
        ("revoked", "revoked"),
        ("expired", "expired"),
        ("lapsed", "expired"),
        ("not_activated", "domain_not_activated"),
        ("other_product", "product_mismatch"),
        ("over_limit", "too_many_domains"),
    ],
)
def test_verify_result_codes(api_client, setup, result):
    product = ProductFactory(slug="theme", starter_max_domains=1, business_max_domains=3)
    license = LicenseFactory(product=product)
    ActivationFactory(license=license, domain="a.com")
    key, extra = license.license_key, {}
    if setup == "unknown":
        key = "EMP-AAAA-AAAA-AAAA-AAAA-AAAA"
    elif setup == "revoked":
        license.status = LicenseStatus.REVOKED
    elif setup == "expired":
        license.status = LicenseStatus.EXPIRED
    elif setup == "lapsed":
        license.expires_at = timezone.now() - timedelta(seconds=1)
    elif setup == "other_product":
        extra = {"product": "seo"}
    license.save()
    domain = "b.com" if setup == "not_activated" else "a.com"
    if setup == "over_limit":  # active on three domains as business, then moved to starter
        ActivationFactory(license=license, domain="b.com")
        ActivationFactory(license=license, domain="c.com")
        domain = "c.com"
    body = verify(api_client, key, domain, **extra)
    assert (body["valid"], body["result"]) == (False, result)
    assert check_signature(api_client, body)["result"] == result
    if setup == "over_limit":  # the earliest activation keeps the licence
        assert verify(api_client, key, "a.com")["result"] == "valid"


def test_development_host_verifies_beyond_the_limit(api_client):
    license = LicenseFactory(product=ProductFactory(starter_max_domains=1))
    ActivationFactory(license=license, domain="live.com")
    ActivationFactory(license=license, domain="localhost", is_development=True)
    body = verify(api_client, license.license_key, "localhost:3000")
    assert (body["result"], body["development_host"]) == ("valid", True)


def test_a_tampered_verdict_does_not_verify(api_client):
    license = LicenseFactory()
    body = verify(api_client, license.license_key, "a.com")
    payload = json.loads(base64.b64decode(body["signed"]["payload"]))
    payload["valid"] = True
    forged = base64.b64encode(signing.canonical_json(payload))
    published = api_client.get(f"{BASE}/public-key").json()
    public = Ed25519PublicKey.from_public_bytes(base64.b64decode(published["public_key"]))
    with pytest.raises(InvalidSignature):
        public.verify(base64.b64decode(body["signed"]["signature"]), base64.b64decode(forged))


def test_verify_needs_a_domain(api_client):
    response = post(api_client, "verify", {"license_key": "EMP-X"})
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["domain"]


# --- Signing key ------------------------------------------------------------------------------


def test_public_key_is_published_in_two_forms(api_client):
    body = api_client.get(f"{BASE}/public-key").json()
    raw = base64.b64decode(body["public_key"])
    pem = serialization.load_pem_public_key(body["public_key_pem"].encode())
    assert pem.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw) == raw
    assert body["algorithm"] == "ed25519"
    assert len(body["key_id"]) == 16


def test_key_from_settings(api_client, settings):
    seed = bytes(range(32))
    settings.LICENSE_SIGNING_KEY = base64.b64encode(seed).decode()
    expected = (
        Ed25519PrivateKey.from_private_bytes(seed)
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )
    assert base64.b64decode(api_client.get(f"{BASE}/public-key").json()["public_key"]) == expected


def test_pem_key_from_settings(settings):
    key = Ed25519PrivateKey.generate()
    settings.LICENSE_SIGNING_KEY = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    assert signing.public_key_bytes() == key.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


def test_unset_key_is_derived_from_secret_key_and_stable(settings):
    settings.LICENSE_SIGNING_KEY = ""
    first = signing.public_key_bytes()
    assert signing.public_key_bytes() == first
    settings.SECRET_KEY = "another-secret-key-for-this-test-only-0123456789"
    assert signing.public_key_bytes() != first


@pytest.mark.parametrize(
    "raw", ["not-base64!", base64.b64encode(b"short").decode(), "-----BEGIN X"]
)
def test_malformed_key_names_the_variable(raw):
    with pytest.raises(ImproperlyConfigured, match="LICENSE_SIGNING_KEY"):
        signing.load_private_key(raw, secret_key="x")


# --- Rate limits ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "limit", "body"),
    [
        ("/api/v1/licenses/activate", 10, {"license_key": "EMP-X", "domain": "a.com"}),
        ("/api/v1/licenses/deactivate", 10, {"license_key": "EMP-X", "domain": "a.com"}),
        ("/api/v1/licenses/verify", 30, {"license_key": "EMP-X", "domain": "a.com"}),
        ("/api/v1/updates/check", 30, {"license_key": "EMP-X", "version": "1.0"}),
        ("/api/v1/updates/info", 30, {"license_key": "EMP-X"}),
        ("/api/v1/updates/download", 5, {"license_key": "EMP-X", "domain": "a.com"}),
        ("/api/v1/components/list", 30, {"license_key": "EMP-X"}),
        ("/api/v1/components/available", 30, {"license_key": "EMP-X"}),
        ("/api/v1/components/check", 30, {"license_key": "EMP-X", "components": {"a": "1"}}),
        (
            "/api/v1/components/download",
            100,
            {"license_key": "EMP-X", "domain": "a.com", "slug": "a"},
        ),
    ],
)
def test_rate_limits(api_client, path, limit, body):
    for _ in range(limit):
        assert api_client.post(path, body, format="json").status_code != 429
    response = api_client.post(path, body, format="json")
    assert response.status_code == 429
    assert response.json()["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    # Counted per client address: another address is not limited.
    other = api_client.post(path, body, format="json", REMOTE_ADDR="10.9.9.9")
    assert other.status_code != 429
