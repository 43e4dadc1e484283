"""The feeds' routes through HTTP: status and settings, generation (202, through the outbox),
the feed file (token or staff, ETag/Last-Modified, 304), token rotation, skipped products,
refusals and query ceilings."""

from __future__ import annotations

import gzip

import pytest
from django.utils.http import http_date

from common.models import OutboxMessage
from store.feeds import services
from store.feeds.models import Feed
from tests.fixtures.store import API, basic_auth, error
from tests.store.catalog.factories import BrandFactory, CategoryFactory
from tests.store.feeds.conftest import (
    FEEDS,
    complete_product,
    csrf_staff,  # noqa: F401
    enable,
    nonce,
)

pytestmark = pytest.mark.django_db


def token_of(marketplace: str) -> str:
    return Feed.objects.get(marketplace=marketplace).token


def test_list_answers_every_marketplace_with_its_status(staff):
    response = staff.get(FEEDS)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"feeds", "total", "page", "per_page", "total_pages"}
    assert body["total"] == 2
    by_name = {f["marketplace"]: f for f in body["feeds"]}
    assert set(by_name) == {"google", "skroutz"}
    google = by_name["google"]
    assert google["enabled"] is False
    assert google["status"] == "never"
    assert google["generated_at"] is None
    assert google["etag"] is None
    assert google["url"].endswith(f"/marketplace/feeds/google/feed.xml?token={token_of('google')}")
    assert google["settings"]["availability_in_stock"] is None
    assert by_name["skroutz"]["settings"]["availability_in_stock"].startswith("Άμεση")
    assert response["Cache-Control"].startswith("max-age=0")


def test_detail_and_unknown_marketplace(staff):
    assert staff.get(f"{FEEDS}/google").json()["format"] == "Google Merchant Center RSS 2.0"
    error(staff.get(f"{FEEDS}/ebay"), 404, "marketplace_not_found")
    error(
        staff.patch(f"{FEEDS}/ebay", {"enabled": True}, format="json"), 404, "marketplace_not_found"
    )
    error(staff.post(f"{FEEDS}/ebay/generate"), 404, "marketplace_not_found")
    error(staff.get(f"{FEEDS}/ebay/feed.xml"), 404, "marketplace_not_found")
    error(staff.get(f"{API}/marketplace/categories/mapping/ebay"), 404, "marketplace_not_found")


def test_patch_and_put_change_settings(staff):
    category = CategoryFactory()
    response = staff.patch(
        f"{FEEDS}/skroutz",
        {
            "enabled": True,
            "include_out_of_stock": True,
            "category_ids": [category.pk],
            "availability_backorder": "Παράδοση έως 30 ημέρες",
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    settings = response.json()["settings"]
    assert settings["enabled"]
    assert settings["include_out_of_stock"]
    assert settings["category_ids"] == [category.pk]
    assert settings["availability_backorder"] == "Παράδοση έως 30 ημέρες"
    response = staff.put(
        f"{FEEDS}/google", {"shipping_price": "3.5", "shipping_country": "de"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["settings"]["shipping_price"] == "3.50"
    assert response.json()["settings"]["shipping_country"] == "DE"


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"enabled": "yes"}, "enabled"),
        ({"category_ids": [999999]}, "category_ids"),
        ({"category_ids": "1"}, "category_ids"),
        ({"shipping_price": "-1"}, "shipping_price"),
        ({"shipping_price": "1.234"}, "shipping_price"),
        ({"shipping_country": "XX"}, "shipping_country"),
        ({"availability_in_stock": "Soon"}, "availability_in_stock"),
        ({"token": "mine"}, "token"),
        ({"status": "ready"}, "status"),
    ],
)
def test_bad_settings_are_refused_naming_them_and_change_nothing(staff, body, param):
    before = staff.get(f"{FEEDS}/skroutz").json()
    response = staff.patch(f"{FEEDS}/skroutz", body, format="json")
    assert error(response, 400, "invalid_param")["data"]["params"].keys() >= {param}
    assert staff.get(f"{FEEDS}/skroutz").json() == before


def test_google_has_no_availability_wording(staff):
    response = staff.patch(
        f"{FEEDS}/google", {"availability_in_stock": "Κατόπιν παραγγελίας"}, format="json"
    )
    assert "availability_in_stock" in error(response, 400)["data"]["params"]


@pytest.mark.parametrize(
    "body",
    [
        "[]",
        '"text"',
        "null",
        '{"enabled": true, "category_ids": [' + "1," * 2000 + "1]}",
        '{"category_ids": [99999999999999999999999999]}',
        '{"shipping_country": "G\\u0000"}',
        '{"shipping_country": "\\ud800"}',
        '{"availability_in_stock": "' + "x" * 10000 + '"}',
        "[" * 5000 + "]" * 5000,
    ],
)
def test_hostile_bodies_never_500(staff, body):
    for url in (f"{FEEDS}/skroutz", f"{API}/marketplace/categories/mapping/google"):
        for method in ("patch", "put"):
            response = getattr(staff, method)(url, body, content_type="application/json")
            assert 400 <= response.status_code < 500, (url, body[:50], response.content[:200])


def test_the_sweeps_hostile_bodies_on_real_marketplaces(seller):
    """The hardening sweep calls these routes with an unknown marketplace (404 first); here
    its bodies reach the real ones, as an administrator over Basic with CSRF enforced."""
    from django.test import Client

    from tests.hardening.test_every_route import HOSTILE

    client = Client(enforce_csrf_checks=True, HTTP_AUTHORIZATION=basic_auth(seller))
    enable("google")
    for body in HOSTILE.values():
        for method, url in (
            ("patch", f"{FEEDS}/google"),
            ("put", f"{FEEDS}/skroutz"),
            ("post", f"{FEEDS}/google/generate"),
            ("post", f"{FEEDS}/skroutz/rotate-token"),
            ("put", f"{API}/marketplace/categories/mapping/google"),
            ("patch", f"{API}/marketplace/categories/mapping/skroutz"),
        ):
            response = getattr(client, method)(url, body, content_type="application/json")
            assert response.status_code < 500, (method, url, body[:40], response.content[:200])
            assert response["Content-Type"].startswith("application/json")


def test_generate_answers_202_and_enqueues_once_after_commit(
    staff, django_capture_on_commit_callbacks
):
    error(staff.post(f"{FEEDS}/google/generate"), 409, "feed_disabled")
    complete_product()
    enable("google")
    with django_capture_on_commit_callbacks(execute=False):
        first = staff.post(f"{FEEDS}/google/generate")
        second = staff.post(f"{FEEDS}/google/generate")
    assert first.status_code == 202, first.content
    assert first.json()["status"] == "queued"
    assert second.status_code == 202
    waiting = OutboxMessage.objects.filter(task="store_feeds.generate", sent_at__isnull=True)
    assert waiting.count() == 1  # the second ask joined the first


def test_generate_runs_the_task_at_commit(staff, django_capture_on_commit_callbacks):
    complete_product()
    enable("skroutz")
    with django_capture_on_commit_callbacks(execute=True):
        response = staff.post(f"{FEEDS}/skroutz/generate")
    assert response.status_code == 202
    status = staff.get(f"{FEEDS}/skroutz").json()
    assert status["status"] == "ready"
    assert status["item_count"] == 1
    assert status["etag"].startswith('"')
    assert status["size"] > 0
    assert status["generated_at"].endswith("Z")


def test_the_feed_file_with_etag_last_modified_and_304(anon, staff):
    error(
        anon.get(f"{FEEDS}/google/feed.xml?token={services.feed_ensure('google').token}"),
        404,
        "feed_not_generated",
    )
    complete_product()
    enable("google")
    feed = services.generate(marketplace="google")
    url = f"{FEEDS}/google/feed.xml?token={feed.token}"
    response = anon.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/rss+xml; charset=utf-8"
    etag = response["ETag"]
    assert etag == f'"{feed.file.etag}"'
    assert response["Last-Modified"] == http_date(feed.file.modified_at.timestamp())
    assert response.content == bytes(feed.file.content)
    assert response["X-Robots-Tag"] == "noindex"
    again = anon.get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == etag
    assert anon.get(url, HTTP_IF_NONE_MATCH='"other", ' + etag).status_code == 304
    assert anon.get(url, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    assert anon.get(url, HTTP_IF_MODIFIED_SINCE=response["Last-Modified"]).status_code == 304
    assert anon.get(url, HTTP_IF_MODIFIED_SINCE="Mon, 01 Jan 2001 00:00:00 GMT").status_code == 200
    assert anon.get(url, HTTP_IF_MODIFIED_SINCE="garbage").status_code == 200
    assert staff.get(f"{FEEDS}/google/feed.xml").status_code == 200  # staff need no token
    assert anon.get(f"{FEEDS}/skroutz/feed.xml?token={feed.token}").status_code == 403


def test_the_gzipped_feed(anon):
    complete_product()
    enable("skroutz")
    feed = services.generate(marketplace="skroutz")
    url = f"{FEEDS}/skroutz/feed.xml.gz?token={feed.token}"
    response = anon.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert gzip.decompress(response.content) == bytes(feed.file.content)
    assert response["ETag"] == f'"{feed.file.etag}-gz"'
    assert response["Content-Disposition"] == 'attachment; filename="skroutz.xml.gz"'
    assert anon.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    plain_etag = f'"{feed.file.etag}"'
    assert anon.get(url, HTTP_IF_NONE_MATCH=plain_etag).status_code == 200
    error(anon.get(f"{FEEDS}/skroutz/feed.xml.gz?token=wrong"), 403, "invalid_feed_token")
    again = services.generate(marketplace="skroutz")  # the same catalog: the same bytes
    assert anon.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    assert again.file.etag == feed.file.etag


@pytest.mark.parametrize(
    "query",
    ["", "?token=", "?token=wrong", "?token=" + "x" * 5000, "?token=%ED%A0%80", "?token=%FF"],
)
def test_a_wrong_or_missing_token_is_refused(anon, customer_client, query):
    complete_product()
    enable("google")
    services.generate(marketplace="google")
    url = f"{FEEDS}/google/feed.xml{query}"
    error(anon.get(url), 403, "invalid_feed_token")
    error(customer_client.get(url), 403, "invalid_feed_token")


def test_a_refused_fetch_writes_nothing(anon, staff):
    error(anon.get(f"{FEEDS}/google/feed.xml?token=guess"), 403, "invalid_feed_token")
    assert not Feed.objects.exists()
    error(staff.get(f"{FEEDS}/google/feed.xml"), 404, "feed_not_generated")


def test_a_nul_in_the_token_is_a_bad_parameter(anon):
    services.feed_ensure("google")
    error(anon.get(f"{FEEDS}/google/feed.xml?token=%00"), 400, "invalid_param")


def test_rotating_the_token_cuts_off_the_old_url(anon, staff):
    complete_product()
    enable("google")
    services.generate(marketplace="google")
    old = token_of("google")
    assert anon.get(f"{FEEDS}/google/feed.xml", {"token": old}).status_code == 200
    response = staff.post(f"{FEEDS}/google/rotate-token")
    assert response.status_code == 200, response.content
    new = token_of("google")
    assert new != old
    assert response.json()["url"].endswith(new)
    error(anon.get(f"{FEEDS}/google/feed.xml", {"token": old}), 403, "invalid_feed_token")
    assert anon.get(f"{FEEDS}/google/feed.xml", {"token": new}).status_code == 200


def test_skipped_products_are_listed_with_what_they_lack(staff):
    complete_product(title="Fine")
    for n in range(3):
        complete_product(title=f"Blank {n}", featured_image_id=None)
    enable("google")
    services.generate(marketplace="google")
    response = staff.get(f"{FEEDS}/google/skipped", {"per_page": 2, "page": 2})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["total"], body["total_pages"], body["skipped_total"]) == (3, 2, 3)
    (row,) = body["skipped"]
    assert row["missing"] == ["image_link"]
    assert staff.get(f"{FEEDS}/google").json()["skipped_count"] == 3
    error(staff.get(f"{FEEDS}/google/skipped", {"per_page": 0}), 400, "invalid_param")


def test_permission_refusals(anon, customer_client, manager_client):
    for client, status, code in (
        (anon, 401, "not_logged_in"),
        (customer_client, 403, "insufficient_capability"),
        (manager_client, 403, "insufficient_capability"),  # shop managers lack it
    ):
        error(client.get(FEEDS), status, code)
        error(client.patch(f"{FEEDS}/google", {"enabled": True}, format="json"), status, code)
        error(client.post(f"{FEEDS}/google/generate"), status, code)
        error(client.post(f"{FEEDS}/google/rotate-token"), status, code)
        error(client.get(f"{FEEDS}/google/skipped"), status, code)
        error(
            client.put(
                f"{API}/marketplace/categories/mapping/google", {"mapping": {}}, format="json"
            ),
            status,
            code,
        )
    assert not Feed.objects.filter(enabled=True).exists()


def test_unsafe_calls_need_the_nonce(csrf_staff):  # noqa: F811
    url = f"{FEEDS}/google"
    refused = csrf_staff.patch(url, {"enabled": True}, content_type="application/json")
    assert refused.status_code in (401, 403)
    assert not Feed.objects.filter(enabled=True).exists()
    for call in (
        lambda h: csrf_staff.patch(url, {"enabled": True}, content_type="application/json", **h),
        lambda h: csrf_staff.post(f"{url}/rotate-token", **h),
        lambda h: csrf_staff.post(f"{url}/generate", **h),
    ):
        response = call({"HTTP_X_PLATFORM_NONCE": nonce(csrf_staff)})
        assert response.status_code in (200, 202), response.content
    mapping = f"{API}/marketplace/categories/mapping/google"
    assert csrf_staff.put(
        mapping, {"mapping": {}}, content_type="application/json"
    ).status_code in (401, 403)
    ok = csrf_staff.put(
        mapping,
        {"mapping": {}},
        content_type="application/json",
        HTTP_X_PLATFORM_NONCE=nonce(csrf_staff),
    )
    assert ok.status_code == 200


def test_list_and_status_queries_do_not_grow(staff, django_assert_max_num_queries):
    brand, category = BrandFactory(), CategoryFactory()
    complete_product(brand=brand, category=category)
    enable("google")
    enable("skroutz")
    services.generate(marketplace="google")
    staff.get(FEEDS)  # warm: the rows exist
    with django_assert_max_num_queries(8) as few:
        assert staff.get(FEEDS).status_code == 200
    for n in range(15):
        complete_product(title=f"Lamp {n}", brand=brand, category=category, featured_image_id=None)
    services.generate(marketplace="google")
    services.generate(marketplace="skroutz")
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert staff.get(FEEDS).status_code == 200
    with django_assert_max_num_queries(8):
        assert staff.get(f"{FEEDS}/google/skipped").status_code == 200
    with django_assert_max_num_queries(8):
        assert staff.get(f"{FEEDS}/google").status_code == 200


def test_the_beat_asks_for_stale_enabled_feeds_only(settings):
    from datetime import timedelta

    from django.utils import timezone

    enable("google")
    services.feed_ensure("skroutz")
    assert services.regenerate_due() == ["google"]
    assert services.regenerate_due() == []  # already waiting
    Feed.objects.filter(marketplace="google").update(
        status="ready", generated_at=timezone.now() - timedelta(minutes=5)
    )
    assert services.regenerate_due() == []
    Feed.objects.filter(marketplace="google").update(
        generated_at=timezone.now() - timedelta(minutes=settings.FEEDS_REGENERATE_MINUTES + 1)
    )
    assert services.regenerate_due() == ["google"]


def test_a_feed_turned_off_while_queued_is_not_generated(staff):
    complete_product()
    enable("google")
    services.generation_request(marketplace="google")
    services.feed_update(marketplace="google", fields={"enabled": False})
    feed = services.generate(marketplace="google")
    assert feed.status == "never"
    assert staff.get(f"{FEEDS}/google/feed.xml").status_code == 404


def test_the_tasks_are_registered():
    from common.outbox import task_named

    assert task_named("store_feeds.generate").acks_late
    assert task_named("store_feeds.regenerate_due").acks_late
    from config.celery import app

    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert "store_feeds.regenerate_due" in tasks


@pytest.mark.parametrize("marketplace", ["google", "skroutz"])
def test_each_feed_is_served_in_a_content_type_its_description_documents(anon, marketplace):
    """What schemathesis checks from outside (ST105): the answer's media type is documented."""
    from store.docs.schema import store_schema_document

    complete_product()
    enable(marketplace)
    feed = services.generate(marketplace=marketplace)
    response = anon.get(f"{FEEDS}/{marketplace}/feed.xml?token={feed.token}")
    assert response.status_code == 200
    operation = store_schema_document()["paths"]["/marketplace/feeds/{marketplace}/feed.xml"]["get"]
    assert response["Content-Type"].split(";")[0] in operation["responses"]["200"]["content"]
