import pytest

from store.catalog.models import Category
from tests.fixtures.store import API, error
from tests.store.catalog.factories import CategoryFactory, make_product
from tests.store.media.factories import media_row

pytestmark = pytest.mark.django_db


def test_list_with_counts_parent_search_and_hide_empty(anon):
    top = CategoryFactory(name="Clothing", sort_order=1)
    shirts = CategoryFactory(name="Shirts", parent=top)
    CategoryFactory(name="Home", sort_order=0)
    make_product(title="Tee", category_ids=[shirts.pk])
    make_product(title="Draft", category_ids=[shirts.pk], status="draft")
    body = anon.get(f"{API}/categories").json()
    assert [c["name"] for c in body["data"]] == ["Home", "Shirts", "Clothing"]
    assert body["meta"] == {"page": 1, "per_page": 100, "total": 3, "total_pages": 1}
    assert {c["name"]: c["count"] for c in body["data"]} == {"Home": 0, "Shirts": 1, "Clothing": 0}
    assert [c["name"] for c in anon.get(f"{API}/categories", {"parent": 0}).json()["data"]] == [
        "Home",
        "Clothing",
    ]
    assert [
        c["name"] for c in anon.get(f"{API}/categories", {"parent": top.pk}).json()["data"]
    ] == ["Shirts"]
    assert [c["name"] for c in anon.get(f"{API}/categories", {"search": "shi"}).json()["data"]] == [
        "Shirts"
    ]
    assert [
        c["name"] for c in anon.get(f"{API}/categories", {"hide_empty": "true"}).json()["data"]
    ] == ["Shirts"]
    error(anon.get(f"{API}/categories", {"parent": "x"}), 400)


def test_create_read_update(manager_client, anon):
    image = media_row()
    parent = CategoryFactory()
    response = manager_client.post(
        f"{API}/categories",
        {
            "name": "Floor lamps",
            "parent_id": parent.pk,
            "image_id": image.pk,
            "description": "Tall.",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["slug"], body["parent_id"], body["image"]["id"], body["count"]) == (
        "floor-lamps",
        parent.pk,
        image.pk,
        0,
    )
    assert anon.get(f"{API}/categories/{body['id']}").json() == body
    updated = manager_client.patch(
        f"{API}/categories/{body['id']}", {"name": "Lamps", "parent_id": None}, format="json"
    ).json()
    assert (updated["name"], updated["slug"], updated["parent_id"]) == (
        "Lamps",
        "floor-lamps",
        None,
    )
    error(anon.get(f"{API}/categories/999"), 404, "category_not_found")


@pytest.mark.parametrize(
    ("payload", "param", "code"),
    [
        ({}, "name", "invalid_param"),
        ({"name": " "}, "name", "invalid_param"),
        ({"name": "X", "parent_id": 999}, "parent_id", "invalid_param"),
        ({"name": "X", "image_id": 999}, "image_id", "invalid_param"),
        ({"name": "X", "slug": "taken"}, "slug", "duplicate_slug"),
    ],
)
def test_invalid_categories(manager_client, payload, param, code):
    CategoryFactory(slug="taken")
    body = error(manager_client.post(f"{API}/categories", payload, format="json"), 400, code)
    assert param in body["data"]["params"]
    assert Category.objects.count() == 1


def test_a_category_cannot_move_under_itself_or_its_descendants(manager_client):
    top = CategoryFactory()
    child = CategoryFactory(parent=top)
    grandchild = CategoryFactory(parent=child)
    for parent in (top, child, grandchild):
        error(
            manager_client.patch(
                f"{API}/categories/{top.pk}", {"parent_id": parent.pk}, format="json"
            ),
            400,
            "category_cycle",
        )
    top.refresh_from_db()
    assert top.parent_id is None


def test_delete_moves_children_up_and_keeps_products(manager_client):
    top = CategoryFactory()
    middle = CategoryFactory(parent=top)
    leaf = CategoryFactory(parent=middle)
    product = make_product(title="Tee", category_ids=[middle.pk])
    assert manager_client.delete(f"{API}/categories/{middle.pk}").status_code == 204
    leaf.refresh_from_db()
    assert leaf.parent_id == top.pk
    assert list(product.categories.all()) == []
    error(manager_client.delete(f"{API}/categories/{middle.pk}"), 404, "category_not_found")


def test_tree(anon):
    top = CategoryFactory(name="Clothing")
    shirts = CategoryFactory(name="Shirts", parent=top)
    CategoryFactory(name="Polos", parent=shirts)
    CategoryFactory(name="Home")
    tree = anon.get(f"{API}/categories/tree").json()
    assert [
        (n["name"], [(c["name"], [g["name"] for g in c["children"]]) for c in n["children"]])
        for n in tree
    ] == [
        ("Clothing", [("Shirts", ["Polos"])]),
        ("Home", []),
    ]


def test_bulk_create_update_delete(manager_client):
    keep = CategoryFactory(name="Keep")
    gone = CategoryFactory(name="Gone")
    response = manager_client.post(
        f"{API}/categories/bulk",
        {
            "create": [{"name": "New A"}, {"name": "New B", "parent_id": keep.pk}],
            "update": [{"id": keep.pk, "name": "Kept"}],
            "delete": [gone.pk],
        },
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["success"] is True
    assert [c["name"] for c in body["data"]["created"]] == ["New A", "New B"]
    assert body["data"]["created"][1]["parent_id"] == keep.pk
    assert [c["name"] for c in body["data"]["updated"]] == ["Kept"]
    assert body["data"]["deleted"] == [gone.pk]
    assert set(Category.objects.values_list("name", flat=True)) == {"Kept", "New A", "New B"}


@pytest.mark.parametrize(
    ("payload", "param"),
    [
        ({"create": [{"name": "Ok"}, {"name": ""}]}, "create.1.name"),
        ({"create": [{"name": "Ok"}], "update": [{"id": 999, "name": "X"}]}, "update.0.id"),
        ({"create": [{"name": "Ok"}], "update": [{"name": "X"}]}, "update.0.id"),
        ({"create": [{"name": "Ok"}], "delete": [999]}, "delete"),
        ({"create": [{"name": "Ok", "parent_id": 999}]}, "create.0.parent_id"),
        ({}, "create"),
    ],
)
def test_bulk_is_all_or_nothing(manager_client, payload, param):
    existing = CategoryFactory(name="Existing")
    body = error(manager_client.post(f"{API}/categories/bulk", payload, format="json"), 400)
    assert param in body["data"]["params"], body
    assert list(Category.objects.values_list("name", flat=True)) == ["Existing"]
    existing.refresh_from_db()
    assert existing.name == "Existing"


def test_category_writes_need_the_capability(anon, customer_client):
    category = CategoryFactory(name="Lamps")
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.post(f"{API}/categories", {"name": "X"}, format="json"), status)
        error(client.patch(f"{API}/categories/{category.pk}", {"name": "X"}, format="json"), status)
        error(client.delete(f"{API}/categories/{category.pk}"), status)
        error(
            client.post(f"{API}/categories/bulk", {"delete": [category.pk]}, format="json"), status
        )
    assert list(Category.objects.values_list("name", flat=True)) == ["Lamps"]
