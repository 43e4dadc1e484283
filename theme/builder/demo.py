"""Demo page builder: a published home-page layout (page 1) and two templates, made from the
shipped presets (idempotent: a page with a layout keeps it, a template name is made once)."""

from theme.builder import selectors, services
from theme.builder.models import Layout, LayoutTemplate

HOME_PAGE_ID = 1
HOME = (("hero", "split"), ("content", "about"))
TEMPLATES = (("hero", "centered"), ("shop", "featured-products"))


def seed() -> list[str]:
    lines = []
    if Layout.objects.filter(page_id=HOME_PAGE_ID).exists():
        lines.append(f"  layout of page {HOME_PAGE_ID}: kept")
    else:
        blocks = [b for key in HOME for b in selectors.presets()[key]["blocks"]]
        services.layout_save(
            page_id=HOME_PAGE_ID, blocks=blocks, status="published", version=0, user=None
        )
        lines.append(f"  layout of page {HOME_PAGE_ID}: published (GET /builder/layout/1)")
    for key in TEMPLATES:
        preset = selectors.presets()[key]
        if LayoutTemplate.objects.filter(name=preset["name"]).exists():
            lines.append(f"  template {preset['name']!r}: kept")
            continue
        services.template_create(
            fields={
                "name": preset["name"],
                "description": preset["description"],
                "blocks": preset["blocks"],
            }
        )
        lines.append(f"  template {preset['name']!r}: created")
    return lines
