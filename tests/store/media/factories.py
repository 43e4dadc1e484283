import io
import itertools

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from store.media.models import SIZE_NAMES, MediaImage

_counter = itertools.count(1)


def image_bytes(fmt="JPEG", size=(64, 48), mode="RGB", color=(200, 30, 30)) -> bytes:
    image = Image.new(mode, size, color if mode != "RGBA" else (*color, 128))
    buffer = io.BytesIO()
    image.save(buffer, fmt)
    return buffer.getvalue()


def upload(name="photo.jpg", data=None, content_type="image/jpeg") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data if data is not None else image_bytes(), content_type)


def media_row(**fields) -> MediaImage:
    """An image row without files (fast): renditions point at names that need not exist."""
    n = next(_counter)
    stem = f"store/test/{n:06d}"
    renditions = {
        size: {
            "width": 10,
            "height": 10,
            "files": {
                "base": f"{stem}-{size}.jpg",
                "webp": f"{stem}-{size}.webp",
                "avif": f"{stem}-{size}.avif",
            },
        }
        for size in SIZE_NAMES
    }
    values = {
        "file": f"{stem}.jpg",
        "original_name": f"{n}.jpg",
        "content_type": "image/jpeg",
        "size": 1000,
        "width": 800,
        "height": 600,
        "alt_text": f"Image {n}",
        "renditions": renditions,
    }
    values.update(fields)
    return MediaImage.objects.create(**values)
