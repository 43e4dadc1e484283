"""The public licence API, called by installed copies of a product.

No account: the licence key in the JSON body is the credential. Rate limits (spec: Limits)
count per client address.
"""

from __future__ import annotations

import re

from django.http import FileResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.response import Response

from common.api.schema import portal_schema
from common.api.views import PublicPortalAPIView, validate_input
from common.links import absolute_url
from licensing import domains, downloads, selectors, signing
from licensing.api import serializers as s
from licensing.services.activation import license_activate, license_deactivate

LICENSES_TAG = ["Public licence API"]
UPDATES_TAG = ["Updates and components"]


def _public_schema(summary: str, request, response, *, errors=(404,), tags=LICENSES_TAG, **kw):
    return portal_schema(
        summary=summary,
        request=request,
        responses={200: response},
        errors=errors,
        authenticated=False,
        throttled=True,
        tags=tags,
        **kw,
    )


def _license_block(license, now) -> dict:
    return {
        "status": license.effective_status(now),
        "tier": license.tier,
        "expires_at": license.expires_at,
        "product": license.product,
    }


class ActivateView(PublicPortalAPIView):
    throttle_scope = "license_activate"

    @_public_schema(
        "Activate a licence on a domain",
        s.DomainInputSerializer,
        s.ActivateOutputSerializer,
        errors=(400, 403, 404),
        description="Development hosts (localhost, *.local, *.test, staging sub-domains...) "
        "activate without counting against the tier's domain limit. Activating a domain again "
        "answers `already_activated` and changes nothing. 403 `license_revoked`, "
        "`license_expired`, `too_many_domains`; 400 `product_mismatch`; 404 "
        "`license_not_found`. Emits license.activated.",
    )
    def post(self, request):
        data = validate_input(s.DomainInputSerializer, request.data)
        result = license_activate(**data)
        license, now = result.license, timezone.now()
        body = {
            "success": True,
            "result": "activated" if result.created else "already_activated",
            "license_key": license.license_key,
            "domain": result.activation.domain,
            "development_host": result.activation.is_development,
            "activated_at": result.activation.activated_at,
            "activations_used": result.used,
            "activations_limit": result.limit,
            "activations_left": max(result.limit - result.used, 0),
            "license": _license_block(license, now),
        }
        return Response(s.ActivateOutputSerializer(body).data)


class DeactivateView(PublicPortalAPIView):
    throttle_scope = "license_deactivate"

    @_public_schema(
        "Deactivate a licence on a domain",
        s.DomainInputSerializer,
        s.DeactivateOutputSerializer,
        errors=(404,),
        description="Frees the domain's slot. 404 `license_not_found` or "
        "`domain_not_activated`. Emits license.deactivated.",
    )
    def post(self, request):
        data = validate_input(s.DomainInputSerializer, request.data)
        data.pop("product", None)
        license = license_deactivate(**data)
        domain = domains.normalize_domain(data["domain"])
        body = {
            "success": True,
            "message": f"License deactivated on {domain}.",
            "license_key": license.license_key,
            "domain": domain,
        }
        return Response(s.DeactivateOutputSerializer(body).data)


_SLUG = re.compile(r"[-a-zA-Z0-9_]+")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _verify_input(data) -> dict:
    """DomainInputSerializer's answer, without building a serializer when the input is plainly
    valid (two short strings, an optional slug): the hottest endpoint's input costs ~10 us
    instead of ~300. Anything else goes through the serializer, which words the errors."""
    if type(data) is dict:
        key, domain, product = data.get("license_key"), data.get("domain"), data.get("product")
        if type(key) is str and type(domain) is str and (product is None or type(product) is str):
            key, domain = key.strip(), domain.strip()
            product = None if product is None else product.strip()
            if (
                0 < len(key) <= 100
                and 0 < len(domain) <= 2000
                and (product is None or _SLUG.fullmatch(product))
                and ("product" not in data or product is not None)
                and not _UNSTORABLE.search(key + domain)
            ):
                answer = {"license_key": key, "domain": domain}
                if product is not None:
                    answer["product"] = product
                return answer
    return validate_input(s.DomainInputSerializer, data)


class VerifyView(PublicPortalAPIView):
    throttle_scope = "license_verify"

    @_public_schema(
        "Verify a licence for a domain (signed answer)",
        s.DomainInputSerializer,
        s.VerifyOutputSerializer,
        errors=(),
        description="Always 200 for well-formed input: `valid` and a fixed `result` code "
        "(valid, not_found, product_mismatch, revoked, expired, domain_not_activated, "
        "too_many_domains). `signed.payload` is base64 of the canonical JSON of the verdict and "
        "`signed.signature` its Ed25519 signature, verifiable offline with the key published at "
        "GET /api/v1/licenses/public-key; trust a cached verdict until `valid_until`.",
    )
    def post(self, request):
        data = _verify_input(request.data)
        verdict = selectors.license_verdict(**data)
        return Response({**verdict, "signed": signing.sign(verdict)})


class PublicKeyView(PublicPortalAPIView):
    @portal_schema(
        summary="The public key that signs verify answers",
        responses={200: s.PublicKeySerializer},
        errors=(404,),
        authenticated=False,
        tags=LICENSES_TAG,
    )
    def get(self, request):
        return Response(signing.public_key_info())


def _download_answer(*, kind, item, license, version) -> dict:
    signed = downloads.sign_download(kind=kind, object_id=item.pk, license_id=license.pk)
    return {
        "url": absolute_url(signed.path),
        "expires_at": signed.expires_at,
        "filename": item.file.name.rsplit("/", 1)[-1],
        "version": version,
        "file_size": item.file_size,
        "sha256": item.sha256,
    }


class UpdateCheckView(PublicPortalAPIView):
    throttle_scope = "update_check"

    @_public_schema(
        "Is there a newer release than the installed version?",
        s.UpdateCheckInputSerializer,
        s.UpdateCheckOutputSerializer,
        tags=UPDATES_TAG,
        description="Answers for any licence key that exists, so an expired copy learns that "
        "an update waits; `download_allowed` says whether the licence may download it.",
    )
    def post(self, request):
        data = validate_input(s.UpdateCheckInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        body = selectors.update_check(license=license, installed=data["version"])
        return Response(s.UpdateCheckOutputSerializer(body).data)


class UpdateInfoView(PublicPortalAPIView):
    throttle_scope = "update_info"

    @_public_schema(
        "Latest release and changelogs",
        s.UpdateInfoInputSerializer,
        s.UpdateInfoOutputSerializer,
        tags=UPDATES_TAG,
    )
    def post(self, request):
        data = validate_input(s.UpdateInfoInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        body = selectors.update_info(license=license, installed=data.get("version"))
        return Response(s.UpdateInfoOutputSerializer(body).data)


class UpdateDownloadView(PublicPortalAPIView):
    throttle_scope = "download"

    @_public_schema(
        "A short-lived download URL for a release",
        s.DownloadInputSerializer,
        s.DownloadOutputSerializer,
        errors=(403, 404),
        tags=UPDATES_TAG,
        description="The licence must be active (not revoked or expired) and activated on "
        "`domain`. The URL works for LICENSE_DOWNLOAD_URL_SECONDS (5 minutes by default).",
    )
    def post(self, request):
        data = validate_input(s.DownloadInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        release = downloads.release_for_download(
            license=license, domain=data["domain"], version=data.get("version")
        )
        body = _download_answer(
            kind=downloads.KIND_RELEASE,
            item=release,
            license=license,
            version=release.version,
        )
        return Response(s.DownloadOutputSerializer(body).data)


class DownloadFileView(PublicPortalAPIView):
    throttle_scope = "download_file"

    @portal_schema(
        summary="Fetch a file through a signed download URL",
        responses={
            (200, "application/octet-stream"): OpenApiResponse(
                OpenApiTypes.BINARY, description="The file, streamed in chunks."
            )
        },
        errors=(403, 404),
        authenticated=False,
        throttled=True,
        tags=UPDATES_TAG,
        description="403 `download_link_expired` once the URL's lifetime is over, or "
        "`license_revoked` / `license_expired` when the licence changed since.",
    )
    def get(self, request, token: str):
        download = downloads.resolve_download(token)
        return FileResponse(
            download.file.open("rb"),
            as_attachment=True,
            filename=download.filename,
            content_type="application/octet-stream",
        )


class ComponentListView(PublicPortalAPIView):
    throttle_scope = "component_list"
    only_available = False

    @_public_schema(
        "Components of the licence's product",
        s.LicenseKeyInputSerializer,
        s.ComponentListOutputSerializer,
        tags=UPDATES_TAG,
        description="Every component, with `available` telling whether the licence's tier "
        "includes it.",
    )
    def post(self, request):
        data = validate_input(s.LicenseKeyInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        body = {
            "product": license.product,
            "tier": license.tier,
            "license_status": license.effective_status(),
            "components": selectors.component_rows(
                license=license, only_available=self.only_available
            ),
        }
        return Response(s.ComponentListOutputSerializer(body).data)


class ComponentAvailableView(ComponentListView):
    throttle_scope = "component_available"
    only_available = True

    @_public_schema(
        "Components available to the licence's tier",
        s.LicenseKeyInputSerializer,
        s.ComponentListOutputSerializer,
        tags=UPDATES_TAG,
    )
    def post(self, request):
        return super().post(request)


class ComponentCheckView(PublicPortalAPIView):
    throttle_scope = "component_check"

    @_public_schema(
        "Installed component versions against the latest",
        s.ComponentCheckInputSerializer,
        s.ComponentCheckOutputSerializer,
        tags=UPDATES_TAG,
    )
    def post(self, request):
        data = validate_input(s.ComponentCheckInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        body = selectors.component_check(license=license, installed=data["components"])
        return Response(s.ComponentCheckOutputSerializer(body).data)


class ComponentDownloadView(PublicPortalAPIView):
    throttle_scope = "component_download"

    @_public_schema(
        "A short-lived download URL for a component",
        s.ComponentDownloadInputSerializer,
        s.DownloadOutputSerializer,
        errors=(403, 404),
        tags=UPDATES_TAG,
        description="403 `tier_required` when the component needs a higher tier; the licence "
        "must be active and activated on `domain`.",
    )
    def post(self, request):
        data = validate_input(s.ComponentDownloadInputSerializer, request.data)
        license = selectors.public_license(data["license_key"])
        component = downloads.component_for_download(
            license=license, domain=data["domain"], slug=data["slug"]
        )
        body = _download_answer(
            kind=downloads.KIND_COMPONENT,
            item=component,
            license=license,
            version=component.version,
        )
        return Response(s.DownloadOutputSerializer(body).data)
