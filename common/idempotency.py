"""Idempotency keys for POST requests (Stripe's rules).

- A POST with an `Idempotency-Key` header runs once per caller and key. A repeat with the same
  method, path and body gets the stored answer (header `Idempotent-Replayed: true`); the same
  key with another request is refused with 422; a repeat while the first is still running gets
  409.
- Only successful (2xx) answers are stored: a refused request changed nothing, so running it
  again is safe, and a client that fixes its input may retry under the same key.
- Keys are kept 24 hours (settings.IDEMPOTENCY_KEY_TTL); a beat task deletes older ones.
- A multipart body is compared by its fields and its files' contents, not its bytes: a client
  that retries an upload sends a new boundary.

Views get all of this from common.api.views.IdempotencyMixin (the portal's and the store's base
views), which says whose key it is (`idempotency_scope`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpResponse
from django.http.request import RawPostDataException
from django.utils import timezone

from common.errors import Conflict, ServiceError
from common.jsonload import loads
from common.models import IdempotencyRecord

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
REPLAYED_HEADER = "Idempotent-Replayed"
#: The answer headers stored with the body by default (a view base may keep more).
KEPT_HEADERS = ("Content-Type", "Location")


class Replay(Exception):
    """Raised by `begin` when the stored answer must be returned instead of running the view."""

    def __init__(self, response: HttpResponse) -> None:
        super().__init__("idempotent replay")
        self.response = response


def _hash(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def _fernet(key: str) -> Fernet:
    secret = hmac.new(settings.SECRET_KEY.encode(), b"idempotency:" + key.encode(), "sha256")
    return Fernet(base64.urlsafe_b64encode(secret.digest()))


def fingerprint(method: str, path: str, body: bytes) -> str:
    """Same request, same fingerprint: JSON bodies are compared by content, not formatting.

    A body the JSON loader refuses (not JSON, too deep, unstorable text) is compared byte for
    byte; the view refuses it anyway.
    """
    try:
        canonical = json.dumps(loads(body or b"null"), sort_keys=True, separators=(",", ":"))
    except ValueError:
        canonical = body.hex()
    return _hash(f"{method}\n{path}\n{canonical}")


def multipart_fingerprint(method: str, path: str, data) -> str:
    """A multipart body by content: each field's values and each file's name and SHA-256."""
    parts: list = []
    for name in sorted(data):
        values = data.getlist(name) if hasattr(data, "getlist") else [data[name]]
        for value in values:
            if hasattr(value, "chunks"):
                digest = hashlib.sha256()
                for chunk in value.chunks():
                    digest.update(chunk)
                value.seek(0)
                parts.append([name, "file", value.name, digest.hexdigest()])
            else:
                parts.append([name, "field", str(value)])
    canonical = json.dumps(parts, separators=(",", ":"))
    return _hash(f"{method}\n{path}\nmultipart:{canonical}")


def request_fingerprint(request) -> str:
    """The fingerprint of a DRF request, read before its body is parsed (a multipart body is
    parsed here, with the upload handlers the view has installed)."""
    media_type = (request.content_type or "").split(";", 1)[0].strip().lower()
    if media_type == "multipart/form-data":
        return multipart_fingerprint(request.method, request.path, request.data)
    try:
        body = request.body
    except RawPostDataException:  # the view parsed it already: compare what it read
        body = json.dumps(request.data, default=str).encode()
    return fingerprint(request.method, request.path, body)


def validate_key(key: str) -> str:
    key = key.strip()
    if not key or len(key) > MAX_KEY_LENGTH or not key.isprintable():
        raise ServiceError(
            f"{HEADER} must be 1 to {MAX_KEY_LENGTH} printable characters.",
            code="invalid_idempotency_key",
        )
    return key


def begin(*, scope: str, key: str, request_fingerprint: str) -> IdempotencyRecord:
    """Claim `key` for this request, or raise Replay / a refusal."""
    key = validate_key(key)
    key_hash = _hash(key)
    now = timezone.now()
    expired_before = now - settings.IDEMPOTENCY_KEY_TTL
    for _attempt in range(3):
        try:
            with transaction.atomic():
                record, created = IdempotencyRecord.objects.get_or_create(
                    scope=scope,
                    key_hash=key_hash,
                    defaults={
                        "fingerprint": request_fingerprint,
                        "created_at": now,
                        "locked_at": now,
                    },
                )
        except IntegrityError:  # a concurrent first use won the insert; look again
            continue
        if created:
            return record
        stale = record.state == IdempotencyRecord.State.IN_PROGRESS and (
            record.locked_at < now - settings.IDEMPOTENCY_LOCK_TIMEOUT
        )
        if record.created_at < expired_before or stale:
            # Expired, or its request died mid-way: take the key over, unless someone else just did.
            taken = IdempotencyRecord.objects.filter(
                pk=record.pk, created_at=record.created_at, locked_at=record.locked_at
            ).update(
                fingerprint=request_fingerprint,
                state=IdempotencyRecord.State.IN_PROGRESS,
                response_status=None,
                response_headers={},
                response_body=None,
                created_at=now,
                locked_at=now,
            )
            if taken:
                record.refresh_from_db()
                return record
            continue
        if record.fingerprint != request_fingerprint:
            # 422 in every namespace (the store answers other invalid input with 400).
            raise ServiceError(
                f"{HEADER} was already used with a different request (method, path or "
                "body). Use a new key for a new request.",
                code="idempotency_key_reused",
                status_code=422,
                errors={HEADER: ["This key was already used with a different request."]},
            )
        if record.state == IdempotencyRecord.State.IN_PROGRESS:
            raise Conflict(
                f"A request with this {HEADER} is still being processed; retry shortly.",
                code="idempotency_key_in_use",
                headers={"Retry-After": "1"},
            )
        raise Replay(_stored_response(record, key))
    raise Conflict(
        f"A request with this {HEADER} is still being processed; retry shortly.",
        code="idempotency_key_in_use",
        headers={"Retry-After": "1"},
    )


def complete(
    record: IdempotencyRecord,
    *,
    key: str,
    response: HttpResponse,
    kept_headers: tuple[str, ...] = KEPT_HEADERS,
) -> None:
    """Store a 2xx answer for replay; anything else releases the key."""
    if not 200 <= response.status_code < 300:
        release(record)
        return
    headers = {name: response[name] for name in kept_headers if response.has_header(name)}
    IdempotencyRecord.objects.filter(pk=record.pk).update(
        state=IdempotencyRecord.State.COMPLETED,
        response_status=response.status_code,
        response_headers=headers,
        response_body=_fernet(key.strip()).encrypt(bytes(response.content)),
    )


def release(record: IdempotencyRecord) -> None:
    IdempotencyRecord.objects.filter(
        pk=record.pk, state=IdempotencyRecord.State.IN_PROGRESS
    ).delete()


def _stored_response(record: IdempotencyRecord, key: str) -> HttpResponse:
    try:
        body = _fernet(key).decrypt(bytes(record.response_body or b""))
    except InvalidToken:  # SECRET_KEY rotated since: the answer cannot be read back
        raise Conflict(
            f"The answer stored for this {HEADER} can no longer be read; use a new key.",
            code="idempotency_key_unreadable",
        ) from None
    response = HttpResponse(body, status=record.response_status)
    for name, value in record.response_headers.items():
        response[name] = value
    response[REPLAYED_HEADER] = "true"
    return response


def purge_expired() -> int:
    cutoff = timezone.now() - settings.IDEMPOTENCY_KEY_TTL
    deleted, _ = IdempotencyRecord.objects.filter(created_at__lt=cutoff).delete()
    return deleted
