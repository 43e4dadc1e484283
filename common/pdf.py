"""What every PDF the project draws (courier labels, invoices, purchase orders) shares: its
text font and how text is made fit for it.

Text is set in DejaVu Sans (or the TrueType font PDF_FONT names) when the system has it, so
Greek and other scripts print as they are; else in Helvetica, with the characters its
encoding lacks replaced.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.conf import settings

FONT_NAME = "EmporionSans"
FONT_PATHS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
)


@cache
def font() -> str:
    """The font's name for reportlab (registered on first use). reportlab loads with the
    first PDF drawn, not with every process that loads the app."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for path in (settings.PDF_FONT, *FONT_PATHS):
        if path and Path(path).is_file():
            try:
                pdfmetrics.registerFont(TTFont(FONT_NAME, path))
            except Exception:  # noqa: BLE001, S112 - an unreadable font: try the next
                continue
            return FONT_NAME
    return "Helvetica"


def text(value) -> str:
    """`value` as text the font can draw: NUL bytes and lone surrogates dropped or replaced."""
    out = str(value if value is not None else "").replace("\x00", "")
    out = out.encode("utf-8", "replace").decode("utf-8")
    if font() == "Helvetica":
        out = out.encode("cp1252", "replace").decode("cp1252")
    return out


def fit(canvas, value, size: float, width: float) -> str:
    """The text cut to `width` points at `size` (with an ellipsis)."""
    out = text(value)
    while out and canvas.stringWidth(out, font(), size) > width:
        out = out[:-2] + "…" if len(out) > 1 else ""
    return out
