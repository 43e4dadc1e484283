"""The bank-transfer hold is counted in hours now (24 hours by default, no "never").

A store that set `payments.bank_transfer_hold_days` keeps its choice, as hours: days x 24, and
0 ("never") becomes the longest hold, 60 days. Until this runs, reading the settings ignores
the old key (store.settings.selectors keeps only declared keys), so nothing breaks.
"""

from django.db import migrations

OLD, NEW = "bank_transfer_hold_days", "bank_transfer_hold_hours"
LONGEST = 60 * 24


def _convert(apps, old: str, new: str, convert) -> None:
    """Replace the stored `old` key of the payments section by `new` (its value converted;
    dropped when it is not an integer, so the default applies)."""
    SettingsSection = apps.get_model("store_settings", "SettingsSection")
    for row in SettingsSection.objects.filter(name="payments"):
        if old not in row.values:
            continue
        values = dict(row.values)
        value = values.pop(old)
        if new not in values and isinstance(value, int) and not isinstance(value, bool):
            values[new] = convert(value)
        row.values = values
        row.save(update_fields=["values"])


def days_to_hours(apps, schema_editor):
    _convert(apps, OLD, NEW, lambda days: min(days * 24, LONGEST) if days > 0 else LONGEST)


def hours_to_days(apps, schema_editor):
    _convert(apps, NEW, OLD, lambda hours: min(max(1, -(-hours // 24)), 60))


class Migration(migrations.Migration):
    dependencies = [
        ("store_payments", "0001_initial"),
        ("store_settings", "0001_initial"),
    ]

    operations = [migrations.RunPython(days_to_hours, hours_to_days)]
