"""Rendering (POST /builder/render, GET and POST /builder/preview/{id}) escapes every value:
hostile strings in every text and attribute come out inert; URLs other than http(s),
site-relative or #fragments are refused when saved or posted, and turned into "#" if one is
stored anyhow. Product grids show active products only. The block types list their schemas."""

import re

import pytest

from tests.store.catalog.factories import CategoryFactory, make_product
from tests.theme.builder.conftest import BUILDER, HEADING, error
from theme.builder.blocks import CONTENT
from theme.builder.models import Layout

pytestmark = pytest.mark.django_db

HOSTILE = "\"><script>alert(1)</script><img src=x onerror=alert(2)> ' onmouseover='x"


def hostile_layout() -> list:
    return [
        {"type": "heading", "settings": {"text": HOSTILE, "level": 1}},
        {"type": "text", "settings": {"text": HOSTILE + "\n\n<style>body{}</style>"}},
        {
            "type": "image",
            "settings": {"src": "/img.png?a=1&b=2", "alt": HOSTILE, "caption": HOSTILE},
        },
        {"type": "button", "settings": {"label": HOSTILE, "url": "https://example.com/?q=a&b=c"}},
        {
            "type": "columns",
            "children": [
                {"type": "column", "children": [{"type": "heading", "settings": {"text": HOSTILE}}]}
            ],
        },
        {"type": "product_grid", "settings": {"product_ids": [1], "title": HOSTILE}},
    ]


def assert_inert(html: str) -> None:
    assert "<script" not in html.lower()
    assert "<style" not in html.lower()
    assert "<img src=x" not in html  # the text stays text
    assert "javascript:" not in html.lower()
    # no value ever leaves its attribute: every attribute is name="value" without raw quotes
    for tag in re.findall(r"<[a-z0-9]+[^>]*>", html):
        rest = re.sub(r'\s[a-z-]+="[^"<>]*"', "", tag)
        assert re.fullmatch(r"<[a-z0-9]+\s*>", rest), tag
    assert "&lt;script&gt;" in html


def test_render_escapes_every_value(clients):
    response = clients["editor"].post(
        f"{BUILDER}/render", {"blocks": hostile_layout()}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert body["block_count"] == 8
    assert_inert(body["html"])
    assert 'href="https://example.com/?q=a&amp;b=c"' in body["html"]


def test_render_refuses_a_quote_in_a_url(clients):
    blocks = [
        {"type": "button", "settings": {"label": "x", "url": 'https://a.example/"onclick="x'}}
    ]
    body = error(
        clients["editor"].post(f"{BUILDER}/render", {"blocks": blocks}, format="json"),
        400,
        "invalid_block",
    )
    assert "blocks[0].settings.url" in body["data"]["params"]


def test_render_with_valid_urls(clients):
    blocks = [
        {"type": "button", "settings": {"label": "a", "url": "/shop?x=1&y=2"}},
        {
            "type": "image",
            "settings": {"src": "https://cdn.example.com/a.png", "alt": "", "link": "#top"},
        },
    ]
    html = (
        clients["editor"]
        .post(f"{BUILDER}/render", {"blocks": blocks}, format="json")
        .json()["html"]
    )
    assert 'href="/shop?x=1&amp;y=2"' in html
    assert 'src="https://cdn.example.com/a.png"' in html
    assert 'href="#top"' in html


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,<script>",
        "vbscript:x",
        "//evil.example",
        "/\\evil.example",
        "https://a.example/<x>",
        "https://user@evil.example",
        "/ok\n",
        "http:/x",
    ],
)
def test_hostile_urls_are_refused(clients, url):
    blocks = [{"type": "button", "settings": {"label": "x", "url": url}}]
    response = clients["editor"].post(f"{BUILDER}/render", {"blocks": blocks}, format="json")
    error(response, 400, "invalid_block")


def test_a_stored_bad_url_renders_as_a_fragment(clients):
    """Defence in depth: a layout written around the services still renders safely."""
    Layout.objects.create(
        page_id=5,
        blocks=[
            {"type": "button", "settings": {"label": "x", "url": "javascript:alert(1)"}},
            {"type": "image", "settings": {"src": '"><script>', "alt": "a"}},
            {"type": "heading", "settings": {"text": "x", "level": '1 onclick="y"'}},
            {"type": "retired_type", "settings": {}},
            "not a block",
            {"type": "spacer", "settings": "x"},
            {"type": "product_grid", "settings": {"product_ids": "1", "limit": "x"}},
            {"type": "product_grid", "settings": {"category_id": "1", "limit": "x"}},
            {"type": "columns", "children": "x"},
        ],
    )
    html = clients["editor"].get(f"{BUILDER}/preview/5").json()["html"]
    assert 'href="#"' in html
    assert 'src="#"' in html
    assert "javascript" not in html
    assert "<script" not in html
    assert "onclick" not in html
    assert "<h2" in html


def test_preview_of_the_saved_layout_and_of_a_posted_one(clients):
    editor = clients["editor"]
    editor.post(f"{BUILDER}/layout/9", {"blocks": hostile_layout(), "version": 0}, format="json")
    saved = editor.get(f"{BUILDER}/preview/9")
    assert saved.status_code == 200
    assert saved.json()["version"] == 1
    assert saved.json()["status"] == "draft"
    assert_inert(saved.json()["html"])
    posted = editor.post(f"{BUILDER}/preview/9", {"blocks": [HEADING]}, format="json")
    assert posted.status_code == 200
    assert posted.json()["version"] is None
    assert "Hello" in posted.json()["html"]
    assert Layout.objects.get().version == 1  # nothing saved
    assert Layout.objects.get().blocks[0]["settings"]["text"] == HOSTILE
    error(editor.get(f"{BUILDER}/preview/10"), 404, "layout_not_found")
    error(
        editor.post(f"{BUILDER}/preview/9", {"blocks": [{"type": "x"}]}, format="json"),
        400,
        "invalid_block",
    )


@pytest.mark.parametrize(
    ("who", "status"),
    [
        ("anonymous", 401),
        ("customer", 403),
        ("editor", 200),
        ("chief", 200),
        ("shop_manager", 200),
        ("manage_options", 200),
    ],
)
def test_who_may_render_preview_and_list_blocks(clients, who, status):
    client = clients[who]
    Layout.objects.create(page_id=3, blocks=[HEADING], status="published")
    for response in (
        client.post(f"{BUILDER}/render", {"blocks": [HEADING]}, format="json"),
        client.post(f"{BUILDER}/preview/3", {"blocks": [HEADING]}, format="json"),
        client.get(f"{BUILDER}/preview/3"),
        client.get(f"{BUILDER}/blocks"),
    ):
        assert response.status_code == status, (who, response.content[:200])


def test_product_grids_show_active_products(clients, django_assert_max_num_queries):
    category = CategoryFactory(name="Lamps")
    lamp = make_product(title="<b>Lamp</b>", regular_price="12.50")
    lamp.categories.add(category)
    hidden = make_product(title="Hidden", status="draft")
    hidden.categories.add(category)
    other = make_product(title="Chair")
    blocks = [
        {"type": "product_grid", "settings": {"product_ids": [other.pk, hidden.pk, lamp.pk]}},
        {"type": "product_grid", "settings": {"category_id": category.pk, "limit": 5}},
        {"type": "product_grid", "settings": {"category_id": category.pk, "limit": 5}},
    ]
    client = clients["editor"]
    client.post(f"{BUILDER}/render", {"blocks": [HEADING]}, format="json")  # warm the session
    with django_assert_max_num_queries(8):
        html = client.post(f"{BUILDER}/render", {"blocks": blocks}, format="json").json()["html"]
    assert html.index("Chair") < html.index("&lt;b&gt;Lamp&lt;/b&gt;")
    assert "Hidden" not in html
    assert html.count(f'data-product-id="{lamp.pk}"') == 3
    assert "12.50" in html


def test_block_types_with_their_schemas(clients):
    body = clients["editor"].get(f"{BUILDER}/blocks").json()
    types = {b["type"]: b for b in body["blocks"]}
    assert set(types) == {*CONTENT, "column"}
    assert "rich_text" in types
    assert "html" not in types  # no raw HTML block: rich text is sanitised
    assert types["heading"]["schema"]["properties"]["level"]["maximum"] == 6
    assert types["columns"]["children"] == ["column"]
    assert types["column"]["top_level"] is False
    assert body["limits"] == {"max_depth": 6, "max_blocks": 300}
