"""The debug admin: entries read-only, escaped; the settings written through the service."""

from __future__ import annotations

import pytest
from django.urls import reverse

from debugtools import handler
from debugtools.choices import Level
from debugtools.models import DebugSettings, LogEntry
from tests.debugtools.conftest import entry

pytestmark = pytest.mark.django_db


def test_entries_are_read_only_and_shown_escaped(admin_client):
    row = entry("<script>alert(1)</script>", context={"k": "<b>v</b>"})
    listing = admin_client.get(reverse("admin:debugtools_logentry_changelist"))
    assert listing.status_code == 200
    assert b"<script>alert(1)</script>" not in listing.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in listing.content
    change = admin_client.get(reverse("admin:debugtools_logentry_change", args=[row.pk]))
    assert change.status_code == 200
    assert b"<script>alert(1)</script>" not in change.content
    assert admin_client.get(reverse("admin:debugtools_logentry_add")).status_code == 403
    admin_client.post(reverse("admin:debugtools_logentry_change", args=[row.pk]), {"message": "x"})
    assert LogEntry.objects.get().message == "<script>alert(1)</script>"


def test_settings_are_changed_through_the_service(admin_client):
    add = reverse("admin:debugtools_debugsettings_add")
    form = {"level": Level.ERROR, "retention_days": 0, "js_log_enabled": "on"}
    response = admin_client.post(add, form)
    assert response.status_code == 200  # the form again, with the service's refusal
    assert "retention_days" in response.context["adminform"].form.errors
    assert not DebugSettings.objects.exists()
    form["retention_days"] = 30
    assert admin_client.post(add, form).status_code == 302
    stored = DebugSettings.objects.get()
    assert (stored.pk, stored.level, stored.retention_days) == (1, Level.ERROR, 30)
    assert handler.recording_level() == Level.ERROR  # applied at once, as through the API
    assert admin_client.get(add).status_code == 403  # one row only
    change = reverse("admin:debugtools_debugsettings_change", args=[1])
    assert admin_client.get(change).status_code == 200
    form |= {"level": Level.INFO}
    assert admin_client.post(change, form).status_code == 302
    assert DebugSettings.objects.get().level == Level.INFO


def test_the_settings_are_never_deleted_not_even_by_a_forged_request(admin_client, rf, admin_user):
    from django.contrib import admin as django_admin

    from common.errors import ServiceError
    from debugtools import services

    services.settings_update(values={"level": Level.ERROR})
    row = DebugSettings.objects.get()
    delete = reverse("admin:debugtools_debugsettings_delete", args=[row.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    model_admin = django_admin.site._registry[DebugSettings]
    assert model_admin.has_delete_permission(rf.get("/")) is False
    with pytest.raises(ServiceError) as refused:
        model_admin.remove(rf.get("/"), row)
    assert refused.value.code == "not_deletable"
    assert DebugSettings.objects.filter(pk=row.pk).exists()
