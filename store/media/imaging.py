"""Image checks and renditions with Pillow. No database, no storage: bytes in, bytes out."""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, ImageOps, UnidentifiedImageError, features

from store.media.models import SIZES

# Formats accepted on upload (as detected from the content) and their MIME types.
ACCEPTED = {
    "JPEG": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "GIF": ("image/gif", "gif"),
    "WEBP": ("image/webp", "webp"),
    "AVIF": ("image/avif", "avif"),
}


class ImageRefused(Exception):
    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class Sniffed:
    format: str
    content_type: str
    extension: str
    width: int
    height: int


# libavif's encoder speed (0 slowest .. 10 fastest). Pillow's default, 6, spends 40 ms on a
# 150 px thumbnail and 110 ms on a 1024 px image; 8 spends 4 and 32 ms for files within 2% of
# the size, so an upload's nine renditions are made in a fraction of the time.
AVIF_SPEED = 8


def avif_supported() -> bool:
    return bool(features.check("avif"))


def webp_supported() -> bool:
    return bool(features.check("webp"))


def sniff(data: bytes, *, max_pixels: int) -> Sniffed:
    """What the bytes are, from their content (the name and the declared type are ignored)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                fmt = image.format
                width, height = image.size
                if fmt not in ACCEPTED:
                    raise ImageRefused(
                        f"{fmt or 'This'} images are not accepted; upload JPEG, PNG, GIF, WebP "
                        "or AVIF.",
                        "unsupported_image_type",
                    )
                if width * height > max_pixels:
                    raise ImageRefused(
                        f"The image has {width}x{height} pixels; at most {max_pixels} are "
                        "accepted.",
                        "image_too_large",
                    )
                image.verify()
            with Image.open(io.BytesIO(data)) as image:
                image.load()  # verify() does not decode everything: truncated files fail here
    except ImageRefused:
        raise
    except (UnidentifiedImageError, Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageRefused(
            "The file is not an image this store accepts (JPEG, PNG, GIF, WebP or AVIF).",
            "invalid_image",
        ) from None
    except (OSError, SyntaxError, ValueError):
        raise ImageRefused("The image file is damaged or truncated.", "invalid_image") from None
    content_type, extension = ACCEPTED[fmt]
    return Sniffed(fmt, content_type, extension, width, height)


def _has_alpha(image: Image.Image) -> bool:
    return image.mode in ("RGBA", "LA", "PA") or (
        image.mode == "P" and "transparency" in image.info
    )


@dataclass
class Rendition:
    size: str
    width: int
    height: int
    files: dict[str, tuple[str, bytes]]  # format key -> (extension, bytes)


def renditions(
    data: bytes,
    *,
    webp: bool = True,
    avif: bool = True,
    jpeg_quality: int = 85,
    webp_quality: int = 80,
    avif_quality: int = 60,
) -> list[Rendition]:
    """thumbnail (cropped square), medium and large, in the base format plus WebP and AVIF."""
    with Image.open(io.BytesIO(data)) as opened:
        opened.seek(0)  # the first frame of an animation
        image = ImageOps.exif_transpose(opened)
        alpha = _has_alpha(image)
        image = image.convert("RGBA" if alpha else "RGB")
    out = []
    for name, width, height, crop in SIZES:
        if crop:
            side = min(width, image.width, image.height)
            resized = ImageOps.fit(image, (side, side), Image.Resampling.LANCZOS)
        else:
            resized = image.copy()
            resized.thumbnail((width, height), Image.Resampling.LANCZOS)
        files: dict[str, tuple[str, bytes]] = {}
        if alpha:
            files["base"] = ("png", _encode(resized, "PNG", optimize=True))
        else:
            files["base"] = ("jpg", _encode(resized, "JPEG", quality=jpeg_quality, optimize=True))
        if webp and webp_supported():
            files["webp"] = ("webp", _encode(resized, "WEBP", quality=webp_quality, method=4))
        if avif and avif_supported():
            files["avif"] = (
                "avif",
                _encode(resized, "AVIF", quality=avif_quality, speed=AVIF_SPEED),
            )
        out.append(Rendition(name, resized.width, resized.height, files))
    return out


def _encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()
