"""Releases and components uploaded by staff: the file's size and SHA-256 are recorded."""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.utils import timezone

from licensing.models import Component, Release


def _file_digest(file_field) -> tuple[int, str]:
    digest, size = hashlib.sha256(), 0
    file_field.open("rb")
    try:
        for chunk in file_field.chunks():
            digest.update(chunk)
            size += len(chunk)
    finally:
        file_field.close()
    return size, digest.hexdigest()


def release_save(*, release: Release) -> Release:
    """Store a release (admin upload): its file's size and SHA-256 are recorded."""
    from licensing.versions import parse_version

    parse_version(release.version, field="version")
    with transaction.atomic():
        release.save()
        release.file_size, release.sha256 = _file_digest(release.file)
        release.save(update_fields=["file_size", "sha256"])
    return release


def component_save(*, component: Component) -> Component:
    """Store a component (admin upload): size, SHA-256 and update time are recorded."""
    from licensing.versions import parse_version

    parse_version(component.version, field="version")
    with transaction.atomic():
        component.updated_at = timezone.now()
        component.save()
        component.file_size, component.sha256 = _file_digest(component.file)
        component.save(update_fields=["file_size", "sha256"])
    return component
