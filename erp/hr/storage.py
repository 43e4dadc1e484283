"""Where employee documents live: never served by a public media URL, read back only through
the authorised download routes.

On one machine: a file-system storage outside MEDIA_ROOT, its root settings.HR_DOCUMENTS_ROOT
read at each use (tests point it at a temporary directory). With MEDIA_STORAGE=s3 (several
machines, docs/deploy.md): the `private` storage of settings.STORAGES, the shared bucket under
its private prefix. The services only use Django's storage API (save, open, delete, exists).
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
    if "private" in settings.STORAGES:
        from django.core.files.storage import storages

        return storages["private"]
    return private_storage
