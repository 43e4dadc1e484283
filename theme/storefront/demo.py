"""Demo storefront: a primary and a footer menu, and a few theme settings (idempotent: a
location that has a menu keeps it)."""

from theme.storefront import services
from theme.storefront.models import Menu

MENUS = {
    "primary": (
        "Main menu",
        [
            (
                "Shop",
                "/shop",
                [("New arrivals", "/shop?orderby=date"), ("On sale", "/shop?on_sale=1")],
            ),
            ("About", "/about", []),
            ("Contact", "/contact", []),
        ],
    ),
    "footer": (
        "Footer",
        [
            ("Shipping and returns", "/shipping-returns", []),
            ("Privacy", "/privacy", []),
            ("Terms", "/terms", []),
        ],
    ),
}


def seed() -> list[str]:
    lines = []
    for location, (name, items) in MENUS.items():
        if Menu.objects.filter(location=location).exists():
            lines.append(f"  menu {location}: kept")
            continue
        menu = services.menu_save(fields={"location": location, "name": name})
        for position, (label, url, children) in enumerate(items):
            parent = services.menu_item_save(
                fields={"menu": menu, "label": label, "url": url, "position": position}
            )
            for child_position, (child_label, child_url) in enumerate(children):
                services.menu_item_save(
                    fields={
                        "menu": menu,
                        "parent": parent,
                        "label": child_label,
                        "url": child_url,
                        "position": child_position,
                    }
                )
        lines.append(f"  menu {location}: {name} (GET /rest/theme/v1/menus/{location})")
    services.theme_settings_update(
        values={
            "tagline": "Everything for the home",
            "announcement_enabled": True,
            "announcement_text": "Free shipping over 50 EUR",
        }
    )
    lines.append("  theme settings: tagline and announcement bar (GET /rest/theme/v1/settings)")
    return lines
