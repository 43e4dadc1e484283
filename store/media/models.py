from __future__ import annotations

from django.conf import settings
from django.core.files.storage import FileSystemStorage, default_storage
from django.db import models
from django.utils.encoding import filepath_to_uri

# Rendition sizes: (name, width, height, crop). Never enlarged beyond the original.
SIZES = (
    ("thumbnail", 150, 150, True),
    ("medium", 300, 300, False),
    ("large", 1024, 1024, False),
)
SIZE_NAMES = tuple(name for name, *_ in SIZES)


def media_url(name: str) -> str:
    """The public URL of a stored file. A page of products builds thousands of these, so the
    local file system gets a short cut around urljoin (the same URL FileSystemStorage.url
    answers); other storages answer through their own url()."""
    storage = default_storage._wrapped if hasattr(default_storage, "_wrapped") else None
    if type(storage) is FileSystemStorage and storage.base_url.endswith("/"):
        return storage.base_url + filepath_to_uri(name).lstrip("/")
    return default_storage.url(name)


class MediaImage(models.Model):
    """An uploaded image and its renditions.

    `renditions` maps each size to its dimensions and files, one per format:
    `{"thumbnail": {"width": 150, "height": 150, "files": {"base": "...jpg",
    "webp": "...webp", "avif": "...avif"}}, ...}`. "base" is JPEG, or PNG for images with
    transparency.
    """

    file = models.FileField(max_length=255, upload_to="store/")
    original_name = models.CharField(max_length=255, blank=True)
    content_type = models.CharField(max_length=50, help_text="Detected from the content.")
    size = models.PositiveBigIntegerField(help_text="Bytes.")
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    alt_text = models.CharField(max_length=255, blank=True)
    title = models.CharField(max_length=255, blank=True)
    renditions = models.JSONField(default=dict, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        verbose_name = "image"

    def __str__(self) -> str:
        return self.title or self.original_name or f"Image {self.pk}"

    # --- URLs (no query) ----------------------------------------------------------------

    @property
    def url(self) -> str:
        return media_url(self.file.name)

    def rendition_url(self, size: str, fmt: str = "base") -> str | None:
        files = (self.renditions.get(size) or {}).get("files") or {}
        name = files.get(fmt)
        return media_url(name) if name else None

    def size_urls(self) -> dict:
        """The original and each size in its base format (the original when a size is missing)."""
        out = {"url": self.url}
        for name in SIZE_NAMES:
            out[name] = self.rendition_url(name) or self.url
        return out

    def sources(self) -> dict:
        """Modern formats by size: {"avif": {"thumbnail": url, ...}, "webp": {...}}, when made."""
        out: dict[str, dict] = {}
        for fmt in ("avif", "webp"):
            urls = {name: self.rendition_url(name, fmt) for name in SIZE_NAMES}
            urls = {name: url for name, url in urls.items() if url}
            if urls:
                out[fmt] = urls
        return out

    def rendition_names(self) -> list[str]:
        return [
            name
            for rendition in (self.renditions or {}).values()
            for name in (rendition.get("files") or {}).values()
        ]
