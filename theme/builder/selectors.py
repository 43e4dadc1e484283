"""Reads of the page builder: layouts, templates, the products of product grids, presets."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from urllib.parse import quote

from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.common.errors import not_found
from store.common.money import money_str
from store.common.pagination import Page, paginate
from theme.builder import blocks as block_types
from theme.builder.models import Layout, LayoutTemplate
from theme.builder.render import grid_key, render_layout

PRESETS_DIR = Path(__file__).resolve().parent / "presets"
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


# --- Layouts and templates ----------------------------------------------------------------------


def layout_find(page_id: int) -> Layout | None:
    return Layout.objects.filter(page_id=page_id).first()


def layout_get(page_id: int) -> Layout:
    layout = layout_find(page_id)
    if layout is None:
        raise not_found("layout", page_id)
    return layout


def template_get(template_id: int) -> LayoutTemplate:
    template = LayoutTemplate.objects.filter(pk=template_id).first()
    if template is None:
        raise not_found("template", template_id)
    return template


def templates_page(*, page: int, per_page: int, search: str = "") -> Page:
    rows = LayoutTemplate.objects.order_by("name", "id")
    if search:
        rows = rows.filter(name__icontains=search)
    return paginate(rows, page=page, per_page=per_page)


# --- Rendering ----------------------------------------------------------------------------------


def _card(product: Product) -> dict:
    return {
        "id": product.pk,
        "title": product.title,
        "url": "/product/" + quote(product.slug, safe=""),
        "price": money_str(product.price),
    }


def grid_products(blocks: list) -> dict:
    """The products each product grid of a (valid) layout shows, by theme.builder.render.
    grid_key: active products only; chosen ids in their order, a category's newest first.
    One query for every chosen id, one per distinct category grid (at most MAX_BLOCKS)."""
    product_ids, _categories = block_types.product_references(blocks)
    chosen = {}
    if product_ids:
        rows = Product.objects.filter(pk__in=product_ids, status=ProductStatus.ACTIVE).only(
            "id", "title", "slug", "price"
        )
        chosen = {p.pk: _card(p) for p in rows}
    grids: dict = {}

    def walk(items):
        for block in items if isinstance(items, list) else ():
            if not isinstance(block, dict):
                continue
            settings = block.get("settings")
            if block.get("type") == "product_grid" and isinstance(settings, dict):
                key = grid_key(settings)
                if key in grids or (key[0] == "category" and key[1] is None):
                    continue
                if key[0] == "ids":
                    grids[key] = [chosen[i] for i in key[1] if i in chosen]
                else:
                    rows = (
                        Product.objects.filter(categories=key[1], status=ProductStatus.ACTIVE)
                        .order_by("-created_at", "-id")
                        .only("id", "title", "slug", "price")[: key[2]]
                    )
                    grids[key] = [_card(p) for p in rows]
            walk(block.get("children", []))

    walk(blocks)
    return grids


def render(blocks: list) -> str:
    """The HTML of a valid layout, its product grids filled in."""
    return render_layout(blocks, grids=grid_products(blocks))


# --- Presets ------------------------------------------------------------------------------------


@cache
def presets() -> dict[tuple[str, str], dict]:
    """The shipped presets: theme/builder/presets/<category>/<slug>.json, each
    `{name, description, version, blocks}` (validated by the block schemas in the tests)."""
    found = {}
    for path in sorted(PRESETS_DIR.glob("*/*.json")):
        category, slug = path.parent.name, path.stem
        data = json.loads(path.read_text(encoding="utf-8"))
        found[(category, slug)] = {
            "category": category,
            "slug": slug,
            "name": data["name"],
            "description": data.get("description", ""),
            "version": data["version"],
            "blocks": data["blocks"],
        }
    return found


def preset_summaries(category: str | None = None) -> list[dict]:
    return [
        {k: v for k, v in preset.items() if k != "blocks"}
        for (cat, _slug), preset in presets().items()
        if category is None or cat == category
    ]


def preset_categories() -> list[str]:
    return sorted({category for category, _slug in presets()})


def preset_get(category: str, slug: str) -> dict:
    preset = presets().get((category, slug)) if SLUG.match(category) and SLUG.match(slug) else None
    if preset is None:
        raise not_found("preset", f"{category[:64]}/{slug[:64]}")
    return preset
