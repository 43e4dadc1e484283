"""Media writes: upload (checked, with renditions), edit, delete, regenerate."""

from __future__ import annotations

import logging
import uuid
from pathlib import PurePosixPath

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from common.errors import ServiceError
from store.common.accounts import logged_in
from store.common.errors import invalid_params
from store.media import imaging
from store.media.models import MediaImage
from store.media.signals import media_changed
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)


def max_upload_bytes() -> int:
    """The store setting media.max_upload_size_mb, within the deployment's hard ceiling."""
    mb = min(
        store_settings.get_value("media", "max_upload_size_mb"), settings.STORE_MEDIA_MAX_UPLOAD_MB
    )
    return mb * 1024 * 1024


def too_large(size: int | None = None) -> ServiceError:
    limit = max_upload_bytes() // (1024 * 1024)
    got = f" ({size / 1024 / 1024:.1f} MB)" if size else ""
    return ServiceError(
        f"The file is too large{got}; at most {limit} MB.", code="file_too_large", status_code=413
    )


def _delete_files(names) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:  # already gone, or the storage is unreachable: leave a log line
            logger.warning("could not delete media file %s", name)


def _write_renditions(data: bytes, stem: str) -> tuple[dict, list[str]]:
    options = store_settings.get_section("media")
    made = imaging.renditions(
        data,
        webp=options["webp_enabled"],
        avif=options["avif_enabled"],
        jpeg_quality=options["jpeg_quality"],
        webp_quality=options["webp_quality"],
        avif_quality=options["avif_quality"],
    )
    written: list[str] = []
    result: dict = {}
    try:
        for rendition in made:
            files = {}
            for key, (extension, content) in rendition.files.items():
                name = default_storage.save(
                    f"{stem}-{rendition.size}.{extension}", ContentFile(content)
                )
                written.append(name)
                files[key] = name
            result[rendition.size] = {
                "width": rendition.width,
                "height": rendition.height,
                "files": files,
            }
    except Exception:
        _delete_files(written)
        raise
    return result, written


def media_upload(*, file, user=None, alt_text: str = "", title: str = "") -> MediaImage:
    """Store an uploaded image and its renditions. The type is detected from the content."""
    if file is None:
        raise invalid_params({"file": ["Send the image as the multipart field 'file'."]})
    if file.size > max_upload_bytes():
        raise too_large(file.size)
    data = file.read()
    try:
        sniffed = imaging.sniff(data, max_pixels=settings.STORE_MEDIA_MAX_PIXELS)
    except imaging.ImageRefused as refused:
        raise ServiceError(refused.message, code=refused.code) from None
    now = timezone.now()
    stem = f"store/{now:%Y/%m}/{uuid.uuid4().hex}"
    original = default_storage.save(f"{stem}.{sniffed.extension}", ContentFile(data))
    written = [original]
    try:
        renditions, names = _write_renditions(data, original.rsplit(".", 1)[0])
        written += names
        with transaction.atomic():
            image = MediaImage.objects.create(
                file=original,
                original_name=PurePosixPath(getattr(file, "name", "") or "").name[:255],
                content_type=sniffed.content_type,
                size=len(data),
                width=sniffed.width,
                height=sniffed.height,
                alt_text=(alt_text or "")[:255],
                title=(title or "")[:255],
                renditions=renditions,
                uploaded_by=logged_in(user),
            )
    except Exception:
        _delete_files(written)
        raise
    return image


@transaction.atomic
def media_update(*, image: MediaImage, alt_text: str | None = None, title: str | None = None):
    fields = []
    if alt_text is not None:
        image.alt_text = alt_text
        fields.append("alt_text")
    if title is not None:
        image.title = title
        fields.append("title")
    if fields:
        image.save(update_fields=fields)
        media_changed.send(sender=MediaImage, image_id=image.pk)
    return image


@transaction.atomic
def media_delete(*, image: MediaImage) -> None:
    """Delete the image; products using it lose it. The files go once the deletion commits."""
    names = [image.file.name, *image.rendition_names()]
    image_id = image.pk
    image.delete()
    media_changed.send(sender=MediaImage, image_id=image_id)
    transaction.on_commit(lambda: _delete_files(names))


def media_regenerate_renditions(*, image: MediaImage) -> MediaImage:
    """Make the renditions again (new sizes, formats or quality); the old files are removed."""
    with default_storage.open(image.file.name, "rb") as handle:
        data = handle.read()
    old = image.rendition_names()
    stem = image.file.name.rsplit(".", 1)[0]
    renditions, written = _write_renditions(data, stem)
    try:
        with transaction.atomic():
            MediaImage.objects.filter(pk=image.pk).update(renditions=renditions)
            media_changed.send(sender=MediaImage, image_id=image.pk)
    except Exception:
        _delete_files(written)
        raise
    image.renditions = renditions
    stale = [name for name in old if name not in written]
    transaction.on_commit(lambda: _delete_files(stale))
    return image
