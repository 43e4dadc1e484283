from __future__ import annotations

from django.db.models import Q, QuerySet

from store.common.errors import not_found
from store.media.models import MediaImage


def media_list(*, search: str | None = None) -> QuerySet[MediaImage]:
    queryset = MediaImage.objects.order_by("-id")
    if search:
        queryset = queryset.filter(
            Q(title__icontains=search)
            | Q(original_name__icontains=search)
            | Q(alt_text__icontains=search)
        )
    return queryset


def media_get(image_id: int) -> MediaImage:
    image = MediaImage.objects.filter(pk=image_id).first()
    if image is None:
        raise not_found("media", image_id)
    return image


def featured(image: MediaImage | None) -> dict | None:
    """The spec's featured_image object: id, url, thumbnail, medium, large (+ alt, size)."""
    if image is None:
        return None
    return {
        "id": image.pk,
        **image.size_urls(),
        "alt": image.alt_text,
        "width": image.width,
        "height": image.height,
    }
