"""Every existing group becomes a store role with a slug; the seeded roles get theirs
(shop_manager, store_administrator) and are marked built-in. (Their capabilities are given by
store.access.services.roles_ensure_defaults after every migrate.)"""

import re

from django.db import migrations

BUILT_IN = {"Shop manager": "shop_manager", "Store administrator": "store_administrator"}


def _slug(name: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:56] or "role"
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}_{n}", n + 1
    return slug


def forwards(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    RoleProfile = apps.get_model("store_access", "RoleProfile")
    taken = set(RoleProfile.objects.values_list("slug", flat=True))
    for name, slug in BUILT_IN.items():
        group, _ = Group.objects.get_or_create(name=name)
        if not RoleProfile.objects.filter(group=group).exists():
            RoleProfile.objects.create(group=group, slug=slug, built_in=True)
            taken.add(slug)
    for group in Group.objects.filter(store_role__isnull=True).order_by("id"):
        slug = _slug(group.name, taken | set(BUILT_IN.values()))
        RoleProfile.objects.create(group=group, slug=slug)
        taken.add(slug)


class Migration(migrations.Migration):
    dependencies = [("store_access", "0002_roles")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
