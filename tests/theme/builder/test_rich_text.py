"""The rich-text block: HTML kept to an allow-list of formatting tags by nh3 when a layout or
a template is saved (what is stored is what is shown) and again when it is rendered, so a row
written past the services shows no script, style, event attribute or foreign link either."""

import pytest

from tests.theme.builder.conftest import BUILDER, error
from theme.builder.models import Layout

pytestmark = pytest.mark.django_db

URL = f"{BUILDER}/layout/77"
HOSTILE = (
    '<h2 onclick="x()">Title</h2><p>One <strong>bold</strong> <em>word</em>'
    "<script>alert(1)</script></p><style>p{color:red}</style><img src=x onerror=alert(2)>"
    '<a href="javascript:alert(3)">bad</a> <a href="//evil.example/">also bad</a> '
    '<a href="https://example.com/?a=1&b=2" target="_blank" rel="opener">good</a> '
    '<a href="/shop">local</a><iframe src="https://evil.example/"></iframe>'
    "<!-- hidden --><ul><li>item<table><tr><td>cell</td></tr></table></li></ul>"
)
CLEAN = (
    "<h2>Title</h2><p>One <strong>bold</strong> <em>word</em></p>"
    '<a rel="noopener noreferrer nofollow">bad</a> '
    '<a rel="noopener noreferrer nofollow">also bad</a> '
    '<a href="https://example.com/?a=1&amp;b=2" rel="noopener noreferrer nofollow">good</a> '
    '<a href="/shop" rel="noopener noreferrer nofollow">local</a>'
    "<ul><li>itemcell</li></ul>"
)


def rich(html: str, **settings) -> dict:
    return {"type": "rich_text", "settings": {"html": html, **settings}}


def test_a_saved_layout_stores_the_sanitised_html(clients):
    response = clients["editor"].post(
        URL, {"blocks": [rich(HOSTILE)], "status": "published", "version": 0}, format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["layout"]["blocks"] == [rich(CLEAN)]
    assert Layout.objects.get(page_id=77).blocks == [rich(CLEAN)]
    public = clients["anonymous"].get(URL)
    assert public.json()["layout"]["blocks"] == [rich(CLEAN)]
    rendered = clients["editor"].get(f"{BUILDER}/preview/77").json()["html"]
    assert f'<div class="eb-rich-text eb-align-left">{CLEAN}</div>' in rendered


def test_render_sanitises_and_keeps_the_formatting(clients):
    response = clients["editor"].post(
        f"{BUILDER}/render", {"blocks": [rich(HOSTILE, align="center")]}, format="json"
    )
    assert response.status_code == 200, response.content
    html = response.json()["html"]
    assert f'<div class="eb-rich-text eb-align-center">{CLEAN}</div>' in html
    for gone in ("<script", "<style", "onclick", "onerror", "javascript:", "//evil", "<iframe"):
        assert gone not in html, gone


def test_a_stored_unsanitised_block_is_sanitised_when_rendered(clients):
    """Defence in depth: a layout written around the services still renders safely."""
    Layout.objects.create(page_id=78, blocks=[rich(HOSTILE), rich(["not", "html"])])
    html = clients["editor"].get(f"{BUILDER}/preview/78").json()["html"]
    assert CLEAN in html
    assert "<script" not in html
    assert '<div class="eb-rich-text eb-align-left"></div>' in html


def test_a_template_stores_the_sanitised_html(clients):
    response = clients["chief"].post(
        f"{BUILDER}/templates", {"name": "Rich", "blocks": [rich(HOSTILE)]}, format="json"
    )
    assert response.status_code == 201, response.content
    template_id = response.json()["template"]["id"]
    read = clients["chief"].get(f"{BUILDER}/templates/{template_id}").json()
    assert read["template"]["blocks"] == [rich(CLEAN)]


@pytest.mark.parametrize(
    "given",
    [{}, {"html": 5}, {"html": "x" * 20001}, {"html": "ok", "style": "color:red"}],
    ids=["missing", "not-a-string", "too-long", "unknown-key"],
)
def test_bad_rich_text_settings_are_refused(clients, given):
    response = clients["editor"].post(
        f"{BUILDER}/render",
        {"blocks": [{"type": "rich_text", "settings": given}]},
        format="json",
    )
    body = error(response, 400, "invalid_block")
    assert any(key.startswith("blocks[0].settings") for key in body["data"]["params"])


def test_rich_text_in_a_column(clients):
    blocks = [
        {
            "type": "columns",
            "children": [{"type": "column", "children": [rich("<p>In a <b>column</b></p>")]}],
        }
    ]
    html = clients["editor"].post(f"{BUILDER}/render", {"blocks": blocks}, format="json")
    assert "<p>In a <b>column</b></p>" in html.json()["html"]
