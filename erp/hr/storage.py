"""Where employee documents live: a file-system storage outside MEDIA_ROOT (never served by
a public media URL; read back only through the authorised download routes).

Its root is settings.HR_DOCUMENTS_ROOT, read at each use (tests point it at a temporary
directory). Another backend (S3 without public ACLs, ...) can replace it: the services only
use Django's storage API (save, open, delete, exists).
"""

from __future__ import annotations

import os

from django.conf import settings
from django.core.files.storage import FileSystemStorage


class PrivateDocumentStorage(FileSystemStorage):
    @property
    def base_location(self):
        return str(settings.HR_DOCUMENTS_ROOT)

    @property
    def location(self):
        return os.path.abspath(self.base_location)

    def url(self, name):
        raise ValueError("Employee documents have no public URL: use the download route.")

    def deconstruct(self):
        return ("erp.hr.storage.PrivateDocumentStorage", (), {})


private_storage = PrivateDocumentStorage()


def document_storage():
    return private_storage
