"""Two first writes of a settings section at once both land (no unique-name 500)."""

from __future__ import annotations

import pytest

from store.settings import services
from store.settings.models import SettingsSection
from tests.concurrency import race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_two_first_writes_of_a_section_both_land():
    SettingsSection.objects.filter(name="emails").delete()
    results = race(
        lambda: services.settings_update(section="emails", values={"sender_name": "A"}),
        lambda: services.settings_update(
            section="emails", values={"sender_address": "shop@example.com"}
        ),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    row = SettingsSection.objects.get(name="emails")
    assert row.values["sender_name"] == "A"
    assert row.values["sender_address"] == "shop@example.com"
