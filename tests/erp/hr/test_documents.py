"""/employee-documents: private uploads, size and type checked by content, downloaded through
the authorised routes only."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from erp.hr.models import EmployeeDocument
from tests.accounts.factories import UserFactory
from tests.erp.hr.conftest import BASE, employee_with_account, make_employee
from tests.fixtures.store import error

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def upload(client, employee, name="contract.pdf", content=PDF, **extra):
    return client.post(
        f"{BASE}/employee-documents",
        {"employee_id": employee.pk, "file": SimpleUploadedFile(name, content), **extra},
        format="multipart",
    )


def test_upload_list_read_download_and_delete(hr):
    employee = make_employee()
    response = upload(hr, employee, title="Contract 2024", kind="contract")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["title"], body["kind"], body["content_type"], body["size"]) == (
        "Contract 2024",
        "contract",
        "application/pdf",
        len(PDF),
    )
    assert body["sha256"] == hashlib.sha256(PDF).hexdigest()
    assert body["download_path"] == f"/employee-documents/{body['id']}/download"
    document = EmployeeDocument.objects.get()
    stored = Path(settings.HR_DOCUMENTS_ROOT) / document.file.name
    assert stored.read_bytes() == PDF
    # private: nowhere under MEDIA_ROOT (served publicly in development), no public URL
    media = Path(settings.MEDIA_ROOT).resolve()
    assert media not in stored.resolve().parents
    with pytest.raises(ValueError, match="no public URL"):
        document.file.url  # noqa: B018
    download = hr.get(f"{BASE}/employee-documents/{document.pk}/download")
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == PDF
    assert download["Content-Type"] == "application/pdf"
    assert download["Cache-Control"] == "private, no-store"
    assert "attachment" in download["Content-Disposition"]
    listed = hr.get(f"{BASE}/employee-documents", {"employee_id": employee.pk}).json()
    assert [row["id"] for row in listed["documents"]] == [document.pk]
    patched = hr.patch(
        f"{BASE}/employee-documents/{document.pk}", {"title": "Signed"}, format="json"
    )
    assert patched.json()["title"] == "Signed"
    assert upload(hr, employee, name="scan.png", content=PNG).json()["content_type"] == "image/png"
    assert hr.delete(f"{BASE}/employee-documents/{document.pk}").status_code == 204
    assert not EmployeeDocument.objects.filter(pk=document.pk).exists()


def test_type_is_checked_by_content_not_by_name(hr):
    employee = make_employee()
    error(
        upload(hr, employee, name="evil.pdf", content=b"<script>alert(1)</script>"),
        400,
        "unsupported_document_type",
    )
    error(
        upload(hr, employee, name="virus.exe", content=b"MZ\x90\x00" + b"\x00" * 60),
        400,
        "unsupported_document_type",
    )
    error(upload(hr, employee, name="contract.png", content=PDF), 400, "document_type_mismatch")
    error(upload(hr, employee, name="noext", content=PDF), 400, "document_type_mismatch")
    error(upload(hr, employee, name="empty.pdf", content=b""), 400)
    assert EmployeeDocument.objects.count() == 0
    root = Path(settings.HR_DOCUMENTS_ROOT)
    assert not root.exists() or not any(p.is_file() for p in root.rglob("*"))


def test_size_is_capped(hr, settings):
    settings.HR_DOCUMENT_MAX_MB = 1
    employee = make_employee()
    big = PDF + b"0" * (1024 * 1024)  # just past the cap: stopped by the upload handler
    error(upload(hr, employee, name="big.pdf", content=big), 413, "document_too_large")
    huge = PDF + b"0" * (2 * 1024 * 1024)  # far past it: refused by its declared length
    error(upload(hr, employee, name="huge.pdf", content=huge), 413, "document_too_large")
    assert EmployeeDocument.objects.count() == 0
    exact = PDF + b"0" * (1024 * 1024 - len(PDF))
    assert upload(hr, employee, name="exact.pdf", content=exact).status_code == 201


def test_upload_refusals(hr):
    error(upload(hr, make_employee(), kind="nonsense"), 400)
    error(hr.post(f"{BASE}/employee-documents", {"employee_id": 1}, format="multipart"), 400)
    missing = hr.post(
        f"{BASE}/employee-documents",
        {"employee_id": 999999, "file": SimpleUploadedFile("a.pdf", PDF)},
        format="multipart",
    )
    error(missing, 404, "employee_not_found")
    assert EmployeeDocument.objects.count() == 0


def test_only_hr_reads_or_uploads(store_client, hr, erp_on):
    worker, account = employee_with_account("worker@example.com")
    doc = upload(hr, worker).json()
    for client in (store_client(account), store_client(UserFactory())):
        error(client.get(f"{BASE}/employee-documents"), 403, "insufficient_capability")
        error(client.get(f"{BASE}/employee-documents/{doc['id']}/download"), 403)
        error(upload(client, worker), 403)
    assert EmployeeDocument.objects.count() == 1


def test_the_list_query_count_does_not_grow(hr, django_assert_max_num_queries):
    for _ in range(12):
        upload(hr, make_employee())
    with django_assert_max_num_queries(10):
        body = hr.get(f"{BASE}/employee-documents", {"per_page": 100}).json()
    assert body["total"] == 12


def test_the_default_private_root_is_outside_the_media_root():
    from config import settings as project

    media = Path(project.MEDIA_ROOT).resolve()
    private = Path(project.HR_DOCUMENTS_ROOT).resolve()
    assert media != private
    assert media not in private.parents
