"""Server-side rendering of a (valid) layout to HTML.

Every value is escaped (django.utils.html: format_html escapes each argument, quotes
included, so no value can leave its attribute or open a tag); URLs are checked again here
against the blocks' URL rule (http(s), site-relative or a fragment) and replaced by "#" when
they fail, whatever was stored; rich text is sanitised again (blocks.clean_rich_text) before
it is shown, so a row written past the services still shows no script, style or event
attribute; no inline style and no script anywhere.
Product grids show the products the caller looked up (theme.builder.selectors.grid_products).
"""

from __future__ import annotations

import re

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from theme.builder.blocks import URL_PATTERN, clean_rich_text

_URL = re.compile(URL_PATTERN)
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")
BR = SafeString("<br>")


def safe_url(value) -> str:
    if isinstance(value, str) and len(value) <= 2000 and _URL.fullmatch(value):
        return value
    return "#"


def _align(settings: dict) -> str:
    align = settings.get("align", "left")
    return align if align in ("left", "center", "right") else "left"


def _heading(settings, children, ctx) -> SafeString:
    level = settings.get("level", 2)
    level = level if isinstance(level, int) and 1 <= level <= 6 else 2
    anchor = settings.get("anchor")
    id_attr = format_html(' id="{}"', anchor) if isinstance(anchor, str) and anchor else ""
    return format_html(
        '<h{} class="eb-heading eb-align-{}"{}>{}</h{}>',
        level,
        _align(settings),
        id_attr,
        settings.get("text", ""),
        level,
    )


def _text(settings, children, ctx) -> SafeString:
    text = str(settings.get("text", "")).replace("\r\n", "\n").strip()
    paragraphs = [p for p in _PARAGRAPHS.split(text) if p.strip()] if text else []
    body = format_html_join(
        "",
        "<p>{}</p>",
        ((format_html_join(BR, "{}", ((line,) for line in p.split("\n"))),) for p in paragraphs),
    )
    return format_html('<div class="eb-text eb-align-{}">{}</div>', _align(settings), body)


def _rich_text(settings, children, ctx) -> SafeString:
    html = mark_safe(clean_rich_text(settings.get("html")))  # noqa: S308 - sanitised by nh3
    return format_html('<div class="eb-rich-text eb-align-{}">{}</div>', _align(settings), html)


def _image(settings, children, ctx) -> SafeString:
    size = format_html_join(
        "",
        ' {}="{}"',
        ((name, int(settings[name])) for name in ("width", "height") if name in settings),
    )
    img = format_html(
        '<img src="{}" alt="{}"{} loading="lazy">',
        safe_url(settings.get("src")),
        settings.get("alt", ""),
        size,
    )
    if settings.get("link"):
        img = format_html('<a href="{}" rel="noopener">{}</a>', safe_url(settings["link"]), img)
    caption = settings.get("caption")
    if caption:
        return format_html(
            '<figure class="eb-image">{}<figcaption>{}</figcaption></figure>', img, caption
        )
    return format_html('<figure class="eb-image">{}</figure>', img)


def _button(settings, children, ctx) -> SafeString:
    style = settings.get("style", "primary")
    style = style if style in ("primary", "secondary", "link") else "primary"
    target = ""
    if settings.get("new_tab"):
        target = format_html(' target="{}" rel="{}"', "_blank", "noopener noreferrer")
    return format_html(
        '<div class="eb-button-wrap eb-align-{}"><a class="eb-button eb-button-{}" '
        'href="{}"{}>{}</a></div>',
        _align(settings),
        style,
        safe_url(settings.get("url")),
        target,
        settings.get("label", ""),
    )


def _columns(settings, children, ctx) -> SafeString:
    gap = settings.get("gap", "medium")
    gap = gap if gap in ("none", "small", "medium", "large") else "medium"
    stack = " eb-stack" if settings.get("stack_on_mobile", True) else ""
    return format_html(
        '<div class="eb-columns eb-gap-{}{}">{}</div>', gap, stack, render_blocks(children, ctx)
    )


def _column(settings, children, ctx) -> SafeString:
    width = settings.get("width")
    width_class = format_html(" eb-col-{}", int(width)) if isinstance(width, int) else ""
    return format_html(
        '<div class="eb-column{}">{}</div>', width_class, render_blocks(children, ctx)
    )


def _product_grid(settings, children, ctx) -> SafeString:
    products = ctx.get("grids", {}).get(grid_key(settings), [])
    columns = settings.get("columns", 4)
    columns = columns if isinstance(columns, int) and 1 <= columns <= 6 else 4
    title = settings.get("title")
    heading = format_html('<h2 class="eb-grid-title">{}</h2>', title) if title else ""
    cards = format_html_join(
        "",
        '<li class="eb-product" data-product-id="{}"><a href="{}">{}</a>'
        '<span class="eb-price">{}</span></li>',
        ((p["id"], safe_url(p["url"]), p["title"], p["price"] or "") for p in products),
    )
    return format_html(
        '<section class="eb-product-grid eb-cols-{}">{}<ul>{}</ul></section>',
        columns,
        heading,
        cards,
    )


def _spacer(settings, children, ctx) -> SafeString:
    height = settings.get("height", 32)
    height = height if isinstance(height, int) and 0 <= height <= 400 else 32
    return format_html('<div class="eb-spacer eb-space-{}" aria-hidden="true"></div>', height)


RENDERERS = {
    "heading": _heading,
    "text": _text,
    "rich_text": _rich_text,
    "image": _image,
    "button": _button,
    "columns": _columns,
    "column": _column,
    "product_grid": _product_grid,
    "spacer": _spacer,
}


def grid_key(settings: dict) -> tuple:
    """What a product grid shows, as a key of the looked-up products (values checked again:
    a stored layout is rendered as it is)."""
    ids = settings.get("product_ids")
    if isinstance(ids, list):
        return ("ids", tuple(i for i in ids[:48] if isinstance(i, int)))
    limit = settings.get("limit", 8)
    limit = limit if isinstance(limit, int) and 1 <= limit <= 48 else 8
    category = settings.get("category_id")
    return ("category", category if isinstance(category, int) else None, limit)


def render_blocks(blocks: list, ctx: dict) -> SafeString:
    parts = []
    for block in blocks if isinstance(blocks, list) else ():
        if not isinstance(block, dict):
            continue
        renderer = RENDERERS.get(block.get("type"))
        if renderer is None:  # a type removed since the layout was saved: left out
            continue
        settings = block.get("settings")
        settings = settings if isinstance(settings, dict) else {}
        parts.append(renderer(settings, block.get("children", []), ctx))
    return format_html_join("", "{}", ((part,) for part in parts))


def render_layout(blocks: list, *, grids: dict | None = None) -> str:
    """The HTML of a layout: `<div class="eb-layout">...</div>`."""
    return str(
        format_html(
            '<div class="eb-layout">{}</div>', render_blocks(blocks, {"grids": grids or {}})
        )
    )
