"""Base views of the License Portal namespace (/api/v1/...).

Every portal view derives from PortalViewMixin (tests/common/test_url_conventions.py checks),
which gives it, in one place:

- authentication by bearer token, plus the X-API-Key on the methods or actions the view lists
  in `api_key_methods` / `api_key_actions` (the spec's API-key table), a 401 naming the bearer
  token everywhere else;
- JSON in, JSON out, 415 for a body without a supported Content-Type;
- Idempotency-Key handling for POST (IdempotencyMixin, shared with the store's base view);
- errors in the portal style (common.api.errors), each documented (PortalAutoSchema).
"""

from __future__ import annotations

from rest_framework import exceptions, generics, viewsets
from rest_framework.views import APIView

from common import idempotency
from common.api.schema import PortalAutoSchema
from common.api.throttling import ScopedRateThrottle, caller_identity

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _has_body(request) -> bool:
    meta = request.META
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return length > 0 or "HTTP_TRANSFER_ENCODING" in meta


def require_content_type(request) -> None:
    """A body without a Content-Type is refused (415) rather than silently read as empty."""
    if request.method in _BODY_METHODS and not request.content_type and _has_body(request):
        raise exceptions.UnsupportedMediaType(
            "", detail="The request has a body but no Content-Type; send application/json."
        )


class IdempotencyMixin:
    """Idempotency-Key on POST (common.idempotency), for the base view of a namespace.

    After authentication, permissions and throttles, a POST carrying the header claims the key
    in the caller's scope (`idempotency_scope`); a repeat answers the stored answer, another
    request under the key 422, a repeat while the first runs 409. A 2xx answer is stored with
    the headers of `idempotency_kept_headers`; anything else releases the key.
    """

    #: False: the header is ignored (an answer that cannot be replayed, such as a log-in).
    idempotent: bool = True
    idempotency_kept_headers: tuple[str, ...] = idempotency.KEPT_HEADERS
    _idempotency: tuple | None = None

    def idempotency_scope(self, request) -> str:
        """Whose key it is: `account:<id>` when authenticated, else `address:<ip>`."""
        return caller_identity(request)

    def idempotency_fingerprint(self, request) -> str:
        return idempotency.request_fingerprint(request)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        key = request.headers.get(idempotency.HEADER)
        if request.method == "POST" and key is not None and self.idempotent:
            key = idempotency.validate_key(key)
            # The fingerprint first: it reads the raw body, which parsing the body (a scope
            # may look into it) would consume.
            request_fingerprint = self.idempotency_fingerprint(request)
            record = idempotency.begin(
                scope=self.idempotency_scope(request),
                key=key,
                request_fingerprint=request_fingerprint,
            )
            self._idempotency = (record, key)

    def handle_exception(self, exc):
        if isinstance(exc, idempotency.Replay):
            return exc.response
        try:
            return super().handle_exception(exc)
        except Exception:
            self._release_idempotency()
            raise

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if self._idempotency is not None:
            record, key = self._idempotency
            self._idempotency = None
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            idempotency.complete(
                record, key=key, response=response, kept_headers=self.idempotency_kept_headers
            )
        return response

    def _release_idempotency(self) -> None:
        if self._idempotency is not None:
            idempotency.release(self._idempotency[0])
            self._idempotency = None


class PortalViewMixin(IdempotencyMixin):
    api_key_methods: frozenset[str] = frozenset()
    api_key_actions: frozenset[str] = frozenset()
    throttle_classes = [ScopedRateThrottle]
    schema = PortalAutoSchema()

    def accepts_api_key(self, request) -> bool:
        action = getattr(self, "action", None)
        return request.method in self.api_key_methods or (
            action is not None and action in self.api_key_actions
        )

    def initial(self, request, *args, **kwargs):
        require_content_type(request)
        super().initial(request, *args, **kwargs)


class PortalAPIView(PortalViewMixin, APIView):
    pass


class PortalGenericAPIView(PortalViewMixin, generics.GenericAPIView):
    pass


class PortalGenericViewSet(PortalViewMixin, viewsets.GenericViewSet):
    pass


class PublicPortalAPIView(PortalAPIView):
    """An endpoint for callers without an account (login, register, ...)."""

    authentication_classes: list = []
    permission_classes: list = []


def validate_input(serializer_class, data, **kwargs) -> dict:
    """Run an input serializer; invalid values raise (422 in the portal style)."""
    serializer = serializer_class(data=data, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
