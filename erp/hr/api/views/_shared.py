"""What the HR views share (private to this package): the base views of each access, the
path parameters and file types of the documents, a document's download.
"""

from __future__ import annotations

from django.http import FileResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter

from erp.core.views import ERPView
from erp.hr.access import HR
from store.common.permissions import LOGGED_IN
from store.common.resources import StoreResourceView

TAG = "HR"

DOCUMENT_ID = OpenApiParameter("document_id", int, OpenApiParameter.PATH)

FILE_TYPES = {
    (200, content_type): OpenApiTypes.BINARY
    for content_type in ("application/pdf", "image/png", "image/jpeg")
}


class HRView(ERPView):
    access = {"*": HR}
    openapi_tag = TAG


class HRResourceView(ERPView, StoreResourceView):
    access = {"*": HR}
    openapi_tag = TAG


class MeView(ERPView):
    access = {"*": LOGGED_IN}
    openapi_tag = TAG


def _download(document) -> FileResponse:
    handle = document.file.storage.open(document.file.name, "rb")
    response = FileResponse(
        handle,
        as_attachment=True,
        filename=document.original_name,
        content_type=document.content_type,
    )
    response["Cache-Control"] = "private, no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response
