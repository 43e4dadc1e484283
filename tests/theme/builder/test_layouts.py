"""Layouts over HTTP: saving (created at version 0, replaced with the version read), stale
versions (409, nothing changed), drafts hidden from the public, the edit_post / edit_posts
split, and the validation naming each bad block."""

import pytest

from tests.theme.builder.conftest import BUILDER, HEADING, error
from theme.builder import selectors
from theme.builder.models import Layout

pytestmark = pytest.mark.django_db

URL = f"{BUILDER}/layout/42"


def save(client, blocks, *, version=0, status="draft", url=URL):
    return client.post(url, {"blocks": blocks, "status": status, "version": version}, format="json")


def test_create_read_and_replace(clients):
    editor = clients["editor"]
    response = save(editor, [HEADING])
    assert response.status_code == 201, response.content
    layout = response.json()["layout"]
    assert layout["page_id"] == 42
    assert layout["version"] == 1
    assert layout["status"] == "draft"
    assert layout["blocks"] == [HEADING]
    assert response["Cache-Control"] == "no-store"

    text = {"type": "text", "settings": {"text": "More"}}
    response = save(editor, [HEADING, text], version=1, status="published")
    assert response.status_code == 200, response.content
    assert response.json()["layout"]["version"] == 2
    read = clients["anonymous"].get(URL)
    assert read.status_code == 200
    assert read.json()["layout"]["blocks"] == [HEADING, text]
    assert read.json()["layout"]["status"] == "published"


def test_containers_are_normalised_with_settings_and_children(clients):
    blocks = [{"type": "columns", "children": [{"type": "column"}]}]
    response = save(clients["editor"], blocks)
    assert response.status_code == 201, response.content
    assert response.json()["layout"]["blocks"] == [
        {
            "type": "columns",
            "settings": {},
            "children": [{"type": "column", "settings": {}, "children": []}],
        }
    ]


def test_a_stale_version_answers_409_and_changes_nothing(clients):
    editor = clients["editor"]
    save(editor, [HEADING])
    assert save(editor, [HEADING], version=1).status_code == 200  # now at 2
    body = error(save(editor, [], version=1), 409, "version_conflict")
    assert "version 2" in body["message"]
    error(save(editor, [], version=0), 409, "version_conflict")  # exists already
    error(save(editor, [], version=7), 409, "version_conflict")
    layout = Layout.objects.get()
    assert layout.version == 2
    assert layout.blocks == [HEADING]


def test_a_version_for_a_layout_that_does_not_exist_is_a_conflict(clients):
    error(save(clients["editor"], [HEADING], version=3), 409, "version_conflict")
    assert not Layout.objects.exists()


def test_drafts_are_not_public(clients):
    save(clients["editor"], [HEADING])
    for who in ("anonymous", "customer"):
        error(clients[who].get(URL), 404, "layout_not_found")
    for who in ("editor", "chief", "shop_manager", "manage_options"):
        assert clients[who].get(URL).status_code == 200, who


def test_a_page_without_layout_is_404(clients):
    error(clients["manage_options"].get(f"{BUILDER}/layout/7"), 404, "layout_not_found")


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 401),
        ("customer", 403),
        ("editor", 201),
        ("chief", 201),
        ("shop_manager", 201),
        ("manage_options", 201),
    ],
)
def test_who_may_save_a_layout(clients, who, status):
    response = save(clients[who], [HEADING])
    assert response.status_code == status, response.content
    if status >= 400:
        body = error(response, status)
        assert body["code"] == ("not_logged_in" if status == 401 else "insufficient_capability")
        assert not Layout.objects.exists()


def test_edit_post_alone_cannot_change_someone_elses_layout(clients, store_client):
    save(clients["chief"], [HEADING])
    error(save(clients["editor"], [], version=1), 403, "cannot_edit_layout")
    assert Layout.objects.get().blocks == [HEADING]
    # edit_posts edits every layout
    save(clients["editor"], [HEADING], url=f"{BUILDER}/layout/43")
    assert save(clients["chief"], [], version=1, url=f"{BUILDER}/layout/43").status_code == 200
    assert (
        save(clients["shop_manager"], [], version=2, url=f"{BUILDER}/layout/43").status_code == 200
    )


@pytest.mark.parametrize(
    ("blocks", "where"),
    [
        ("nope", "blocks"),
        ([{"type": "marquee"}], "blocks[0].type"),
        (
            [HEADING, {"type": "heading", "settings": {"text": "x", "level": 9}}],
            "blocks[1].settings.level",
        ),
        ([{"type": "heading", "settings": {"level": 2}}], "blocks[0].settings"),
        ([{"type": "heading", "settings": {"text": "x", "onclick": "a"}}], "blocks[0].settings"),
        ([{"type": "spacer", "children": []}], "blocks[0].children"),
        ([{"type": "column"}], "blocks[0].type"),
        ([{"type": "columns", "children": [HEADING]}], "blocks[0].children[0].type"),
        (
            [
                {
                    "type": "columns",
                    "children": [
                        {
                            "type": "column",
                            "children": [
                                {
                                    "type": "button",
                                    "settings": {"label": "x", "url": "javascript:alert(1)"},
                                }
                            ],
                        }
                    ],
                }
            ],
            "blocks[0].children[0].children[0].settings.url",
        ),
        (
            [{"type": "image", "settings": {"src": "//evil.example/x.png", "alt": ""}}],
            "blocks[0].settings.src",
        ),
        (
            [{"type": "image", "settings": {"src": "data:image/png;base64,AA", "alt": ""}}],
            "blocks[0].settings.src",
        ),
        (
            [{"type": "image", "settings": {"src": "/\\evil.example", "alt": ""}}],
            "blocks[0].settings.src",
        ),
        ([{"type": "product_grid", "settings": {}}], "blocks[0].settings"),
        (
            [{"type": "product_grid", "settings": {"product_ids": [1], "category_id": 2}}],
            "blocks[0].settings",
        ),
        (
            [{"type": "product_grid", "settings": {"product_ids": [10**30]}}],
            "blocks[0].settings.product_ids[0]",
        ),
        ([{"type": "spacer", "settings": {"height": True}}], "blocks[0].settings.height"),
        ([{"type": "spacer", "settings": {"height": 10.0}}], "blocks[0].settings.height"),
        ([["heading"]], "blocks[0]"),
        ([{"type": "heading", "settings": "x"}], "blocks[0].settings"),
        ([{"type": "heading", "settings": {"text": "x"}, "script": 1}], "blocks[0]"),
    ],
)
def test_validation_names_the_bad_block(clients, blocks, where):
    body = error(save(clients["editor"], blocks), 400, "invalid_block")
    assert where in body["data"]["params"], body
    assert not Layout.objects.exists()


def test_depth_and_size_are_bounded(clients):
    deep = HEADING
    for _ in range(5):
        deep = {"type": "columns", "children": [{"type": "column", "children": [deep]}]}
    body = error(save(clients["editor"], [deep]), 400, "invalid_block")
    assert any("too deep" in message for message in body["data"]["params"].values()), body
    body = error(save(clients["editor"], [HEADING] * 301), 400, "invalid_block")
    assert "blocks" in body["data"]["params"]
    assert not Layout.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {"blocks": [HEADING]},  # no version
        {"blocks": [HEADING], "version": -1},
        {"blocks": [HEADING], "version": 10**40},
        {"blocks": [HEADING], "version": 0, "status": "live"},
        {"version": 0},
    ],
)
def test_bad_fields_are_400(clients, body):
    error(clients["editor"].post(URL, body, format="json"), 400, "invalid_param")
    assert not Layout.objects.exists()


def test_huge_page_ids_are_404_not_500(clients):
    response = clients["editor"].get(f"{BUILDER}/layout/1" + "0" * 30)
    assert response.status_code == 404


def test_a_layout_deleted_while_it_is_saved_is_a_conflict_not_a_500(clients, monkeypatch):
    """A save that read the layout before a DELETE removed it answers 409 with no version (a
    save with version 0 makes it again)."""
    editor = clients["editor"]
    save(editor, [HEADING])
    find = selectors.layout_find

    def found_then_deleted(page_id):
        found = find(page_id)
        Layout.objects.filter(page_id=page_id).delete()  # a DELETE in between
        monkeypatch.setattr(selectors, "layout_find", find)
        return found

    monkeypatch.setattr(selectors, "layout_find", found_then_deleted)
    error(save(editor, [], version=1), 409, "version_conflict")
    assert save(editor, [HEADING], version=0).status_code == 201
