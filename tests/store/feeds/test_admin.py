"""The feeds admin: pages render; settings and mappings are saved through the services (their
refusals on the forms); generation and token rotation are actions calling the services."""

from __future__ import annotations

import pytest
from django.urls import reverse

from common.models import OutboxMessage
from store.feeds import services
from store.feeds.models import CategoryMapping, Feed
from tests.store.catalog.factories import CategoryFactory

pytestmark = pytest.mark.django_db


def test_pages_render(admin_client):
    feed = services.feed_ensure("skroutz")
    lamps = CategoryFactory()
    services.mapping_set(marketplace="google", entries={str(lamps.pk): "594"}, replace=True)
    mapping = CategoryMapping.objects.get()
    assert admin_client.get(reverse("admin:store_feeds_feed_changelist")).status_code == 200
    assert (
        admin_client.get(reverse("admin:store_feeds_feed_change", args=[feed.pk])).status_code
        == 200
    )
    assert admin_client.get(reverse("admin:store_feeds_feed_add")).status_code == 403
    for name, args in (("changelist", []), ("add", []), ("change", [mapping.pk])):
        url = reverse(f"admin:store_feeds_categorymapping_{name}", args=args)
        assert admin_client.get(url).status_code == 200


def feed_form(**values) -> dict:
    form = {
        "enabled": "on",
        "category_ids": "[]",
        "shipping_price": "",
        "shipping_country": "",
        "availability_in_stock": "",
        "availability_backorder": "",
        "availability_out_of_stock": "",
    }
    form.update(values)
    return {k: v for k, v in form.items() if v is not None}


def test_feed_settings_go_through_the_service(admin_client):
    feed = services.feed_ensure("skroutz")
    change = reverse("admin:store_feeds_feed_change", args=[feed.pk])
    refused = admin_client.post(change, feed_form(availability_in_stock="Soon"))
    assert refused.status_code == 200
    assert "availability_in_stock" in refused.context["adminform"].form.errors
    feed.refresh_from_db()
    assert not feed.enabled
    assert admin_client.post(change, feed_form(shipping_country="gr")).status_code == 302
    feed.refresh_from_db()
    assert feed.enabled
    assert feed.shipping_country == "GR"


def test_generate_and_rotate_actions(admin_client, django_capture_on_commit_callbacks):
    services.feed_update(marketplace="google", fields={"enabled": True})
    off = services.feed_ensure("skroutz")
    google = Feed.objects.get(marketplace="google")
    changelist = reverse("admin:store_feeds_feed_changelist")
    with django_capture_on_commit_callbacks(execute=False):
        response = admin_client.post(
            changelist,
            {"action": "generate", "_selected_action": [google.pk, off.pk]},
            follow=True,
        )
    text = response.content.decode()
    assert "1 feed(s) queued" in text
    assert "Enable the feed before generating it." in text
    assert OutboxMessage.objects.filter(task="store_feeds.generate").count() == 1
    old = google.token
    admin_client.post(changelist, {"action": "rotate_token", "_selected_action": [google.pk]})
    google.refresh_from_db()
    assert google.token != old


def test_mappings_go_through_the_service(admin_client):
    lamps = CategoryFactory()
    add = reverse("admin:store_feeds_categorymapping_add")
    refused = admin_client.post(
        add, {"marketplace": "google", "category": lamps.pk, "value": "A >  > B"}
    )
    assert refused.status_code == 200
    assert refused.context["adminform"].form.errors
    assert not CategoryMapping.objects.exists()
    form = {"marketplace": "google", "category": lamps.pk, "value": "Home >  Lamps"}
    assert admin_client.post(add, form).status_code == 302
    mapping = CategoryMapping.objects.get()
    assert mapping.value == "Home > Lamps"
    change = reverse("admin:store_feeds_categorymapping_change", args=[mapping.pk])
    assert admin_client.post(change, {"value": "594"}).status_code == 302
    mapping.refresh_from_db()
    assert mapping.value == "594"
    delete = reverse("admin:store_feeds_categorymapping_delete", args=[mapping.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not CategoryMapping.objects.exists()


def test_the_generate_feeds_command(capsys):
    from django.core.management import CommandError, call_command

    call_command("generate_feeds")
    assert "No feed is enabled." in capsys.readouterr().out
    with pytest.raises(CommandError, match="Unknown marketplace"):
        call_command("generate_feeds", "ebay")
    with pytest.raises(CommandError, match="Not enabled: google"):
        call_command("generate_feeds", "google")
    services.feed_update(marketplace="google", fields={"enabled": True})
    call_command("generate_feeds")
    assert "google: ready, 0 item(s), 0 skipped." in capsys.readouterr().out
    call_command("generate_feeds", "google", "--enqueue")
    assert "google: generation enqueued." in capsys.readouterr().out
    assert OutboxMessage.objects.filter(task="store_feeds.generate").count() == 1


def test_a_feed_is_never_added_or_deleted_not_even_by_a_forged_request(admin_client, rf):
    from django.contrib import admin as django_admin

    from common.errors import ServiceError

    feed = services.feed_ensure("google")
    delete = reverse("admin:store_feeds_feed_delete", args=[feed.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    model_admin = django_admin.site._registry[Feed]
    request = rf.get("/")
    assert model_admin.has_add_permission(request) is False
    assert model_admin.has_delete_permission(request) is False
    with pytest.raises(ServiceError) as refused:
        model_admin.create(request, {"marketplace": "skroutz"})
    assert refused.value.code == "not_addable"
    with pytest.raises(ServiceError) as refused:
        model_admin.remove(request, feed)
    assert refused.value.code == "not_deletable"
    assert list(Feed.objects.values_list("marketplace", flat=True)) == ["google"]
