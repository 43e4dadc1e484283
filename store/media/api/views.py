from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import MANAGE_PRODUCTS
from store.common.pagination import data_page, page_of
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.media import selectors, services

from . import serializers as s

# A multipart body carries a little more than the file itself.
_MULTIPART_OVERHEAD = 64 * 1024


class SizeCapUploadHandler(FileUploadHandler):
    """Stops reading a file part once it passes the cap, instead of spooling it to disk."""

    def __init__(self, limit: int, request=None) -> None:
        super().__init__(request)
        self.limit = limit
        self.received = 0
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        self.received = start + len(raw_data)
        if self.received > self.limit:
            self.exceeded = True
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size):
        return None


class MediaBase(StoreAPIView):
    access = {"*": MANAGE_PRODUCTS}
    openapi_tag = "Media"


class MediaListView(MediaBase):
    @store_schema(
        summary="List uploaded images",
        parameters=[s.MediaListQuerySerializer],
        responses={200: s.MediaPageSerializer},
        description="`search` matches title, file name and alt text.",
    )
    def get(self, request):
        query = validate_query(s.MediaListQuerySerializer, request.query_params)
        page = page_of(selectors.media_list(search=query.get("search")), query)
        return Response(data_page(page, lambda image: s.MediaSerializer(image).data))

    _upload = None

    def upload_data(self, request):
        """The multipart body, read once with the size cap in place (413 past it): the cap
        must be installed before anything reads the body, the Idempotency-Key check too."""
        if self._upload is None:
            limit = services.max_upload_bytes()
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit + _MULTIPART_OVERHEAD:
                raise services.too_large(declared)
            handler = SizeCapUploadHandler(limit, request._request)
            request._request.upload_handlers.insert(0, handler)
            data = request.data
            if handler.exceeded:
                raise services.too_large()
            self._upload = data
        return self._upload

    def idempotency_fingerprint(self, request) -> str:
        self.upload_data(request)
        return super().idempotency_fingerprint(request)

    @store_schema(
        summary="Upload an image",
        request={"multipart/form-data": s.MediaUploadSerializer},
        responses={201: s.MediaSerializer},
        errors={413: "The file is larger than the store's media.max_upload_size_mb."},
        description="multipart/form-data with the image in `file` (and optional `alt`, "
        "`title`). The type is detected from the content: JPEG, PNG, GIF, WebP or AVIF; "
        "anything else answers 400 `unsupported_image_type` or `invalid_image`. Renditions "
        "thumbnail (150x150, cropped), medium (300) and large (1024) are made in the base "
        "format (JPEG, or PNG with transparency), WebP and AVIF.",
    )
    def post(self, request):
        data = self.upload_data(request)
        fields = validate_body(
            s.MediaUploadSerializer,
            {key: data.get(key) for key in ("file", "alt", "title") if key in data},
        )
        image = services.media_upload(
            file=fields["file"],
            user=request.user,
            alt_text=fields.get("alt", ""),
            title=fields.get("title", ""),
        )
        return Response(s.MediaSerializer(image).data, status=status.HTTP_201_CREATED)


ID = OpenApiParameter("media_id", int, OpenApiParameter.PATH)


class MediaDetailView(MediaBase, StoreResourceView):
    resource = "image"
    id_kwarg = "media_id"
    output_serializer = s.MediaSerializer
    write_serializer = s.MediaUpdateSerializer
    summaries = {
        "patch": "Edit an image's alt text or title",
        "put": "Edit an image's alt text or title",
    }
    descriptions = {
        "delete": "Products showing it lose it (featured image cleared, gallery entry "
        "removed); its files are removed once the deletion commits.",
    }

    def read(self, request, pk):
        return s.MediaSerializer(selectors.media_get(pk)).data

    def update(self, request, pk, fields):
        services.media_update(
            image=selectors.media_get(pk), alt_text=fields.get("alt"), title=fields.get("title")
        )

    def remove(self, request, pk):
        services.media_delete(image=selectors.media_get(pk))
