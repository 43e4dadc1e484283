"""Operations the modules' migrations share; migrations import them, so they stay as they are.

When the modules moved from one app (`theme_modules`) to one app per module, their tables
stayed and their content types were relabelled in place: the same rows, the same ids, so the
staff's permissions, the admin's history and any generic relation keep pointing at them."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import migrations


def _move(apps, schema_editor, source: str, target: str, models: tuple[str, ...]) -> None:
    content_type = apps.get_model("contenttypes", "ContentType")
    rows = content_type.objects.using(schema_editor.connection.alias)
    # A model already known under the target label keeps its row (a unique pair); the source's
    # row then stays behind as a stale one, as remove_stale_contenttypes reports them.
    taken = set(rows.filter(app_label=target, model__in=models).values_list("model", flat=True))
    rows.filter(app_label=source, model__in=set(models) - taken).update(app_label=target)
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()  # the process's cache holds the labels read before


def relabel_content_types(old_label: str, new_label: str, models: Iterable[str]):
    """A reversible RunPython moving the content types of `models` (lower-case model names)
    from app label `old_label` to `new_label`, and back when unapplied. On a new database there
    are none yet (post_migrate creates them after the migrations, under the new label)."""
    names = tuple(models)

    def forward(apps, schema_editor):
        _move(apps, schema_editor, old_label, new_label, names)

    def backward(apps, schema_editor):
        _move(apps, schema_editor, new_label, old_label, names)

    return migrations.RunPython(forward, backward)
