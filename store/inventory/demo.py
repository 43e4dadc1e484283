"""Demo inventory: a second warehouse beside the default one (idempotent by code)."""

from __future__ import annotations

from store.inventory import services
from store.inventory.models import Warehouse


def seed() -> list[str]:
    default = services.default_warehouse()
    second = Warehouse.objects.filter(code="athens-depot").first()
    if second is None:
        second = services.warehouse_create(
            fields={
                "name": "Athens depot",
                "code": "athens-depot",
                "priority": 10,
                "city": "Athens",
                "country": "GR",
            }
        )
    return [
        f"  {default.name:<24} default  id {default.pk}",
        f"  {second.name:<24} priority {second.priority}  id {second.pk}",
    ]
