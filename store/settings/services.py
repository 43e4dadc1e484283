"""Writing store settings: validated against the section's declaration, or refused whole."""

from __future__ import annotations

from django.db import transaction

from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found
from store.common.params import validate_body
from store.settings import registry, selectors
from store.settings.models import SettingsSection
from store.settings.signals import section_changed


def _section(name: str) -> registry.Section:
    section = registry.get(name)
    if section is None:
        raise not_found("settings_section", name)
    return section


def _after_write(name: str) -> None:
    selectors.invalidate()
    transaction.on_commit(selectors.invalidate)
    section_changed.send(sender=SettingsSection, section=name)


def settings_check(*, section: str, values: dict) -> dict:
    """The values of some keys of one section, validated by its declaration; unknown keys or
    wrong types refuse them all. Writes nothing (the admin's form checks with it too)."""
    declared = _section(section)
    if not isinstance(values, dict):
        raise invalid_params({"body": ["Send a JSON object of setting keys and values."]})
    unknown = sorted(set(values) - set(declared.fields()))
    if unknown:
        raise invalid_params(
            {key: [f"Unknown setting in section {section!r}."] for key in unknown},
            code="unknown_setting",
        )
    return validate_body(declared.serializer, values, partial=True)


@transaction.atomic
def settings_update(*, section: str, values: dict, user=None) -> dict:
    """Set some keys of one section. Unknown keys or wrong types refuse the whole request."""
    declared = _section(section)
    cleaned = settings_check(section=section, values=values)
    row = SettingsSection.objects.select_for_update().filter(name=section).first()
    if row is None:
        # Two first writes of a section at once: the second waits on the first's insert
        # (ON CONFLICT DO NOTHING) and then locks its row, instead of failing on the unique
        # name (a 500 schemathesis found).
        SettingsSection.objects.bulk_create(
            [SettingsSection(name=section, values={})], ignore_conflicts=True
        )
        row = SettingsSection.objects.select_for_update().filter(name=section).first()
        if row is None:  # deleted again meanwhile (a concurrent reset): start afresh
            row = SettingsSection(name=section, values={})
    row.values = {**row.values, **{key: cleaned[key] for key in values}}
    row.updated_by = logged_in(user)
    row.save()
    _after_write(section)
    return selectors._clean(declared, row.values)


@transaction.atomic
def settings_replace(*, section: str, values: dict, user=None) -> dict:
    """Exactly these values (the rest back to defaults), validated like settings_update."""
    _section(section)
    SettingsSection.objects.filter(name=section).delete()
    if not values:
        _after_write(section)
        return registry.get(section).defaults()
    return settings_update(section=section, values=values, user=user)


@transaction.atomic
def settings_reset(*, section: str, user=None) -> dict:
    """Back to the defaults: the stored values of the section are removed."""
    declared = _section(section)
    SettingsSection.objects.filter(name=section).delete()
    _after_write(section)
    return declared.defaults()
