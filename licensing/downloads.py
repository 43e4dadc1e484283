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
from licensing.models import Component, License, Release

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


@dataclass(frozen=True)
class Download:
    file: object  # a FieldFile
    filename: str
    license: License


def resolve_download(token: str) -> Download:
    """The file a token names; 403 when expired or the licence no longer allows it."""
    from licensing.services import refuse_unusable

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
