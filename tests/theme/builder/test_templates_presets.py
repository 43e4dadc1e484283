"""Templates (saved layouts reusable across pages: list and read with edit_post, writes with
edit_posts, versioned) and the shipped presets (public, every one valid against the block
schemas)."""

import json

import pytest

from tests.theme.builder.conftest import BASE, BUILDER, HEADING, error
from theme.builder import blocks as block_types
from theme.builder import selectors
from theme.builder.models import LayoutTemplate

pytestmark = pytest.mark.django_db

TEMPLATES = f"{BUILDER}/templates"


def create(client, name="Landing", blocks=None, **extra):
    body = {"name": name, "blocks": [HEADING] if blocks is None else blocks, **extra}
    return client.post(TEMPLATES, body, format="json")


def test_create_list_read_update_delete(clients, django_assert_max_num_queries):
    chief = clients["chief"]
    response = create(chief, description="Top of the shop")
    assert response.status_code == 201, response.content
    template = response.json()["template"]
    assert template["version"] == 1
    assert template["blocks"] == [HEADING]
    assert template["block_count"] == 1
    for index in range(3):
        create(chief, name=f"Other {index}")
    editor = clients["editor"]
    with django_assert_max_num_queries(6):
        page = editor.get(f"{TEMPLATES}?per_page=2&page=1").json()
    assert page["total"] == 4
    assert page["total_pages"] == 2
    assert [t["name"] for t in page["templates"]] == ["Landing", "Other 0"]
    assert "blocks" not in page["templates"][0]
    assert editor.get(f"{TEMPLATES}?search=landing").json()["total"] == 1

    url = f"{TEMPLATES}/{template['id']}"
    assert editor.get(url).json()["template"]["description"] == "Top of the shop"
    patched = chief.patch(url, {"name": "Landing v2", "version": 1}, format="json")
    assert patched.status_code == 200, patched.content
    assert patched.json()["template"]["version"] == 2
    assert patched.json()["template"]["blocks"] == [HEADING]
    put = chief.put(url, {"name": "Landing v3", "blocks": []}, format="json")
    assert put.status_code == 200
    assert put.json()["template"]["version"] == 3
    assert put.json()["template"]["blocks"] == []
    assert chief.delete(url).json() == {"id": template["id"], "deleted": True}
    error(editor.get(url), 404, "template_not_found")
    error(chief.delete(url), 404, "template_not_found")


def test_a_stale_template_version_is_409(clients):
    chief = clients["chief"]
    template = create(chief).json()["template"]
    url = f"{TEMPLATES}/{template['id']}"
    chief.patch(url, {"name": "B", "version": 1}, format="json")
    error(chief.patch(url, {"name": "C", "version": 1}, format="json"), 409, "version_conflict")
    assert LayoutTemplate.objects.get().name == "B"


def test_template_blocks_are_validated(clients):
    chief = clients["chief"]
    body = error(
        create(chief, blocks=[HEADING, {"type": "image", "settings": {"src": "javascript:x"}}]),
        400,
        "invalid_block",
    )
    assert "blocks[1].settings" in body["data"]["params"]
    assert "blocks[1].settings.src" in body["data"]["params"]
    error(create(chief, name="   "), 400, "invalid_param")
    error(chief.post(TEMPLATES, {"blocks": []}, format="json"), 400, "invalid_param")
    assert not LayoutTemplate.objects.exists()
    template = create(chief).json()["template"]
    url = f"{TEMPLATES}/{template['id']}"
    error(chief.patch(url, {"blocks": [{"type": "nope"}]}, format="json"), 400, "invalid_block")
    error(chief.put(url, {"name": "only a name"}, format="json"), 400, "invalid_param")
    assert LayoutTemplate.objects.get().version == 1


@pytest.mark.parametrize(
    ("who", "read", "write"),
    [
        ("anonymous", 401, 401),
        ("customer", 403, 403),
        ("editor", 200, 403),
        ("chief", 200, 201),
        ("shop_manager", 200, 201),
        ("manage_options", 200, 201),
    ],
)
def test_who_may_read_and_write_templates(clients, administrator, who, read, write):
    from theme.builder import services

    existing = services.template_create(fields={"name": "Base", "blocks": [HEADING]})
    client = clients[who]
    assert client.get(TEMPLATES).status_code == read
    assert client.get(f"{TEMPLATES}/{existing.pk}").status_code == read
    assert create(client).status_code == write
    url = f"{TEMPLATES}/{existing.pk}"
    update = client.patch(url, {"name": "Changed"}, format="json").status_code
    assert update == (200 if write == 201 else write)
    if write != 201:
        assert client.delete(url).status_code == write
        assert LayoutTemplate.objects.filter(name="Base").exists()
        assert LayoutTemplate.objects.count() == 1


def test_creating_a_template_honours_the_idempotency_key(clients):
    chief = clients["chief"]
    first = chief.post(
        TEMPLATES, {"name": "Once", "blocks": []}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    again = chief.post(
        TEMPLATES, {"name": "Once", "blocks": []}, format="json", HTTP_IDEMPOTENCY_KEY="k-1"
    )
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert LayoutTemplate.objects.count() == 1


# --- Presets ------------------------------------------------------------------------------------


def test_every_shipped_preset_is_valid():
    presets = selectors.presets()
    assert len(presets) >= 4
    for (category, slug), preset in presets.items():
        assert selectors.SLUG.match(category), category
        assert selectors.SLUG.match(slug), slug
        assert isinstance(preset["version"], int)
        assert preset["version"] >= 1
        assert preset["name"]
        assert block_types.check_layout(preset["blocks"]) == {}, (category, slug)


def test_preset_files_hold_only_the_known_keys():
    for path in selectors.PRESETS_DIR.glob("*/*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert set(data) <= {"name", "description", "version", "blocks"}, path.name


def test_presets_are_public_and_listed_by_category(clients):
    anonymous = clients["anonymous"]
    body = anonymous.get(f"{BASE}/presets").json()
    assert {"hero", "shop", "content"} <= set(body["categories"])
    assert all("blocks" not in p for p in body["presets"])
    hero = anonymous.get(f"{BASE}/presets?category=hero")
    assert {p["category"] for p in hero.json()["presets"]} == {"hero"}
    assert hero["Cache-Control"].startswith("public")
    assert anonymous.get(f"{BASE}/presets?category=none").json()["presets"] == []
    one = anonymous.get(f"{BASE}/presets/hero/centered")
    assert one.status_code == 200
    assert one.json()["preset"]["blocks"][1]["type"] == "heading"
    for path in (
        "hero/nope",
        "nope/centered",
        "HERO/centered",
        "hero/" + "a" * 300,
    ):
        error(anonymous.get(f"{BASE}/presets/{path}"), 404, "preset_not_found")
    error(anonymous.get(f"{BASE}/presets/hero/..%2Fshop"), 404)  # no route, or no preset


def test_a_preset_saves_as_a_layout(clients):
    preset = clients["anonymous"].get(f"{BASE}/presets/hero/split").json()["preset"]
    response = clients["editor"].post(
        f"{BUILDER}/layout/1", {"blocks": preset["blocks"], "version": 0}, format="json"
    )
    assert response.status_code == 201, response.content


def test_a_template_deleted_while_it_is_changed_is_404_not_500(clients, monkeypatch):
    """A PATCH that read the template before a DELETE removed it answers 404."""
    chief = clients["chief"]
    template = create(chief).json()["template"]
    read = selectors.template_get

    def read_then_deleted(template_id):
        found = read(template_id)
        LayoutTemplate.objects.filter(pk=template_id).delete()  # a DELETE in between
        monkeypatch.setattr(selectors, "template_get", read)
        return found

    monkeypatch.setattr(selectors, "template_get", read_then_deleted)
    url = f"{TEMPLATES}/{template['id']}"
    gone = chief.patch(url, {"name": "Gone", "version": 1}, format="json")
    error(gone, 404, "template_not_found")
