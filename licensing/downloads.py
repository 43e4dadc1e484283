"""Short-lived signed download URLs for release and component files.

A URL is `/api/v1/downloads/<token>`, where the token is signed with SECRET_KEY (Django's
TimestampSigner) and names the file and the licence; it works for
settings.LICENSE_DOWNLOAD_URL_SECONDS. When it is used, the licence is checked again, so a
licence revoked after the URL was issued downloads nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from common.errors import Forbidden, NotFound
from licensing import domains
from licensing.models import Activation, Component, License, Release

_SALT = "licensing.download"
KIND_RELEASE, KIND_COMPONENT = "r", "c"


@dataclass(frozen=True)
class SignedUrl:
    path: str
    expires_at: datetime


def sign_download(*, kind: str, object_id: int, license_id: int) -> SignedUrl:
    token = signing.dumps({"k": kind, "i": object_id, "l": license_id}, salt=_SALT)
    lifetime = timedelta(seconds=settings.LICENSE_DOWNLOAD_URL_SECONDS)
    return SignedUrl(
        path=reverse("license-download-file", kwargs={"token": token}),
        expires_at=timezone.now() + lifetime,
    )


def check_download_allowed(license: License, domain: str) -> None:
    """Downloads need an active licence (not revoked, not expired) activated on `domain`."""
    from licensing.services.activation import refuse_unusable

    refuse_unusable(license, timezone.now())
    domain = domains.normalize_domain(domain)
    if not Activation.objects.filter(license=license, domain=domain).exists():
        raise Forbidden(
            f"This licence is not activated on {domain}; activate it first.",
            code="domain_not_activated",
        )


def release_for_download(*, license: License, domain: str, version: str | None) -> Release:
    """The release (a given version, or the latest) the licence may download on `domain`."""
    from licensing.selectors import latest_release
    from licensing.versions import parse_version

    check_download_allowed(license, domain)
    if version:
        parse_version(version)
        release = license.product.releases.filter(version=version.strip()).first()
    else:
        release = latest_release(license.product)
    if release is None:
        raise NotFound("No such release of this product.", code="release_not_found")
    return release


def component_for_download(*, license: License, domain: str, slug: str) -> Component:
    """The component the licence may download on `domain`; its tier must include it."""
    from licensing.selectors import tier_allows

    check_download_allowed(license, domain)
    component = license.product.components.filter(slug=slug).first()
    if component is None:
        raise NotFound("This product has no such component.", code="component_not_found")
    if not tier_allows(license.tier, component.min_tier):
        raise Forbidden(
            f"The {component.name} component needs the {component.min_tier} tier; this "
            f"licence is {license.tier}.",
            code="tier_required",
        )
    return component


@dataclass(frozen=True)
class Download:
    file: object  # a FieldFile
    filename: str
    license: License


def resolve_download(token: str) -> Download:
    """The file a token names; 403 when expired or the licence no longer allows it."""
    from licensing.services.activation import refuse_unusable

    try:
        data = signing.loads(token, salt=_SALT, max_age=settings.LICENSE_DOWNLOAD_URL_SECONDS)
    except signing.SignatureExpired:
        raise Forbidden(
            "This download link has expired; ask for a new one.", code="download_link_expired"
        ) from None
    except signing.BadSignature:
        raise NotFound("No such download.", code="download_not_found") from None
    model = {KIND_RELEASE: Release, KIND_COMPONENT: Component}.get(data.get("k"))
    item = (
        model.objects.select_related("product").filter(pk=data.get("i")).first() if model else None
    )
    license = License.objects.select_related("product").filter(pk=data.get("l")).first()
    if item is None or license is None or not item.file:
        raise NotFound("No such download.", code="download_not_found")
    refuse_unusable(license, timezone.now())
    extension = item.file.name.rsplit(".", 1)[-1] if "." in item.file.name else "zip"
    if isinstance(item, Release):
        filename = f"{item.product.slug}-{item.version}.{extension}"
    else:
        filename = f"{item.product.slug}-{item.slug}-{item.version}.{extension}"
    return Download(file=item.file, filename=filename, license=license)
