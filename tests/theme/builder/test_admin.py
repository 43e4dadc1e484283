"""The page builder admin: pages render; layouts and templates are written through the
services (blocks checked by the block schemas, refusals shown on the forms, versions raised)."""

import json

import pytest
from django.urls import reverse

from tests.theme.builder.conftest import HEADING
from theme.builder import services
from theme.builder.models import Layout, LayoutTemplate

pytestmark = pytest.mark.django_db


def test_every_page_renders(admin_client, admin_user):
    layout = services.layout_save(
        page_id=3, blocks=[HEADING], status="draft", version=0, user=admin_user
    )
    template = services.template_create(fields={"name": "T", "blocks": [HEADING]})
    for name, obj in (("layout", layout), ("layouttemplate", template)):
        assert (
            admin_client.get(reverse(f"admin:theme_builder_{name}_changelist")).status_code == 200
        )
        assert admin_client.get(reverse(f"admin:theme_builder_{name}_add")).status_code == 200
        change = admin_client.get(reverse(f"admin:theme_builder_{name}_change", args=[obj.pk]))
        assert change.status_code == 200, name


def test_layouts_go_through_the_services(admin_client, admin_user):
    add = reverse("admin:theme_builder_layout_add")
    bad = admin_client.post(
        add, {"page_id": 5, "status": "draft", "blocks": '[{"type": "marquee"}]'}
    )
    assert bad.status_code == 200
    assert b"blocks[0].type" in bad.content
    assert not Layout.objects.exists()
    response = admin_client.post(
        add, {"page_id": 5, "status": "draft", "blocks": json.dumps([HEADING])}
    )
    assert response.status_code == 302, response.content[:2000]
    layout = Layout.objects.get()
    assert layout.version == 1
    assert layout.author == admin_user
    change = reverse("admin:theme_builder_layout_change", args=[layout.pk])
    response = admin_client.post(change, {"status": "published", "blocks": "[]"})
    assert response.status_code == 302, response.content[:2000]
    layout.refresh_from_db()
    assert (layout.version, layout.status, layout.blocks) == (2, "published", [])
    delete = reverse("admin:theme_builder_layout_delete", args=[layout.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not Layout.objects.exists()


def test_templates_go_through_the_services(admin_client):
    add = reverse("admin:theme_builder_layouttemplate_add")
    bad = admin_client.post(
        add,
        {
            "name": "T",
            "description": "",
            "blocks": '[{"type": "spacer", "settings": {"height": -1}}]',
        },
    )
    assert bad.status_code == 200
    assert b"blocks[0].settings.height" in bad.content
    response = admin_client.post(
        add, {"name": "T", "description": "", "blocks": json.dumps([HEADING])}
    )
    assert response.status_code == 302, response.content[:2000]
    template = LayoutTemplate.objects.get()
    change = reverse("admin:theme_builder_layouttemplate_change", args=[template.pk])
    response = admin_client.post(change, {"name": "T2", "description": "d", "blocks": "[]"})
    assert response.status_code == 302, response.content[:2000]
    template.refresh_from_db()
    assert (template.name, template.version, template.blocks) == ("T2", 2, [])
    delete = reverse("admin:theme_builder_layouttemplate_delete", args=[template.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302
    assert not LayoutTemplate.objects.exists()


def test_the_demo_is_idempotent_and_valid():
    from theme.builder import blocks as block_types
    from theme.builder import demo

    first = demo.seed()
    assert any("published" in line for line in first)
    assert demo.seed() == [
        "  layout of page 1: kept",
        "  template 'Centered hero': kept",
        "  template 'Featured products': kept",
    ]
    layout = Layout.objects.get(page_id=1)
    assert layout.status == "published"
    assert block_types.check_layout(layout.blocks) == {}
    assert LayoutTemplate.objects.count() == 2
