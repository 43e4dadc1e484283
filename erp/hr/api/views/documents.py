"""Employee documents: uploaded with a size cap (413 past it), listed, changed, deleted and
downloaded (private files, never under a public media URL).
"""

from __future__ import annotations

from django.core.files.uploadhandler import FileUploadHandler, SkipFile
from rest_framework import status
from rest_framework.response import Response

from erp.hr import selectors, services
from erp.hr.api.views._shared import DOCUMENT_ID, FILE_TYPES, HRResourceView, HRView, _download
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema

from .. import serializers as s

_MULTIPART_OVERHEAD = 64 * 1024


class SizeCapUploadHandler(FileUploadHandler):
    """Stops reading a file part once it passes the cap, instead of spooling it to disk."""

    def __init__(self, limit: int, request=None) -> None:
        super().__init__(request)
        self.limit = limit
        self.exceeded = False

    def receive_data_chunk(self, raw_data, start):
        if start + len(raw_data) > self.limit:
            self.exceeded = True
            raise SkipFile()
        return raw_data

    def file_complete(self, file_size):
        return None


UPLOAD_ERRORS = {413: "The file is larger than HR_DOCUMENT_MAX_MB (`document_too_large`)."}


class EmployeeDocumentListView(HRView):
    _upload = None

    def upload_data(self, request):
        """The multipart body, read once with the size cap in place (413 past it)."""
        if self._upload is None:
            limit = services.max_document_bytes()
            try:
                declared = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                declared = 0
            if declared > limit + _MULTIPART_OVERHEAD:
                raise services.document_too_large(declared)
            handler = SizeCapUploadHandler(limit, request._request)
            request._request.upload_handlers.insert(0, handler)
            data = request.data
            if handler.exceeded:
                raise services.document_too_large()
            self._upload = data
        return self._upload

    def idempotency_fingerprint(self, request) -> str:
        if request.method == "POST":
            self.upload_data(request)
        return super().idempotency_fingerprint(request)

    @store_schema(
        summary="List employee documents",
        parameters=[s.EmployeeDocumentListQuerySerializer],
        responses={200: s.EmployeeDocumentPageSerializer},
        description="`{documents, total, page, per_page, total_pages}`, newest first; "
        "`employee_id`, `kind`. Files are private: read them at `download_path`.",
    )
    def get(self, request):
        query = validate_query(s.EmployeeDocumentListQuerySerializer, request.query_params)
        page = selectors.document_page(query)
        return Response(s.named_page("documents", page, s.document_data))

    @store_schema(
        summary="Upload an employee document",
        request={"multipart/form-data": s.EmployeeDocumentUploadSerializer},
        responses={201: s.EmployeeDocumentSerializer},
        errors={404: "No such employee (`employee_not_found`).", **UPLOAD_ERRORS},
        description="multipart/form-data: `employee_id`, the file in `file`, optional `title`, "
        "`kind`, `visible_to_employee`. The type is detected from the content: PDF, PNG or "
        "JPEG (400 `unsupported_document_type`), and the name's extension must agree (400 "
        "`document_type_mismatch`); an empty file is 400 `empty_document`. Stored privately "
        "(never under a public media URL).",
    )
    def post(self, request):
        data = self.upload_data(request)
        fields = validate_body(
            s.EmployeeDocumentUploadSerializer,
            {
                key: data.get(key)
                for key in ("employee_id", "file", "title", "kind", "visible_to_employee")
                if key in data
            },
        )
        document = services.document_upload(
            employee_id=fields["employee_id"],
            file=fields["file"],
            title=fields.get("title", ""),
            kind=fields.get("kind") or "other",
            visible_to_employee=fields.get("visible_to_employee", True),
            user=request.user,
        )
        return Response(
            s.document_data(selectors.document_get(document.pk)), status=status.HTTP_201_CREATED
        )


class EmployeeDocumentDetailView(HRResourceView):
    resource = "employee document"
    id_kwarg = "document_id"
    output_serializer = s.EmployeeDocumentSerializer
    write_serializer = s.EmployeeDocumentUpdateSerializer
    descriptions = {
        "patch": "Title, kind, visibility to the employee.",
        "put": "Same as PATCH.",
        "delete": "The file is removed once the deletion commits.",
    }

    def read(self, request, pk):
        return s.document_data(selectors.document_get(pk))

    def update(self, request, pk, fields):
        services.document_update(document_id=pk, fields=dict(fields))

    def remove(self, request, pk):
        services.document_delete(document_id=pk)


class EmployeeDocumentDownloadView(HRView):
    @store_schema(
        summary="Download an employee document",
        parameters=[DOCUMENT_ID],
        responses=FILE_TYPES,
        description="The file as uploaded, as an attachment, never cached.",
    )
    def get(self, request, document_id):
        return _download(selectors.document_get(document_id))
