"""Stored list entries (store.catalog.models.ProductListEntry, services.list_entries): a page
reads a product's stored entry only while it is what building it would give, whatever was
written since and in whatever order. Each test compares the public list as served (stored
entries where the query finds them valid) with the same list built afresh (no entry stored),
after writes through the API; the answers must be the same bytes."""

import random
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from store.catalog.models import Category, Product, ProductListEntry
from store.catalog.selectors import product_json
from store.catalog.services import list_entries
from store.media.models import MediaImage
from store.media.signals import media_changed
from tests.fixtures.store import API
from tests.store.catalog.factories import BrandFactory, CategoryFactory, make_product
from tests.store.media.factories import media_row

pg = pytest.mark.postgresql_only  # the entries are PostgreSQL's (selectors.product_json)
pytestmark = pytest.mark.django_db

LIST = {"per_page": 100, "orderby": "id", "order": "asc", "status": "any"}


@pytest.fixture
def shop():
    """Six products (one a draft), each with a featured image, two of three categories and one
    of two brands."""
    brands = [BrandFactory(name="Acme"), BrandFactory(name="Zenith")]
    categories = [
        CategoryFactory(name="Shoes", sort_order=1),
        CategoryFactory(name="Boots", sort_order=2),
        CategoryFactory(name="Sale", sort_order=3),
    ]
    products = [
        make_product(
            title=f"Product {n}",
            status="draft" if n == 5 else "active",
            brand=brands[n % 2].pk,
            category_ids=[categories[n % 3].pk, categories[(n + 1) % 3].pk],
            featured_image_id=media_row().pk,
            regular_price=Decimal(f"{10 + n}.00"),
        )
        for n in range(6)
    ]
    return {"brands": brands, "categories": categories, "products": products}


def listed(client) -> bytes:
    """The list of every product (a manager's: drafts too), the cache emptied first."""
    cache.clear()
    response = client.get(f"{API}/products", LIST)
    assert response.status_code == 200, response.content
    return response.content


def built_afresh(client) -> bytes:
    ProductListEntry.objects.all().delete()
    return listed(client)


def assert_served_as_built(client) -> bytes:
    """The list as served equals the list built without stored entries; answers it."""
    served = listed(client)
    assert served == built_afresh(client)
    return served


def stored_ids() -> set[int]:
    return set(ProductListEntry.objects.values_list("product_id", flat=True))


# --- Reading and storing -------------------------------------------------------------------------


@pg
def test_a_page_stores_the_entries_it_built_and_reads_them_next_time(shop, manager_client):
    ids = {product.pk for product in shop["products"]}
    assert stored_ids() == set()
    first = listed(manager_client)
    assert stored_ids() == ids
    # What is served next comes from the stored entries: an entry changed in place shows.
    entry = ProductListEntry.objects.get(product_id=shop["products"][0].pk)
    ProductListEntry.objects.filter(pk=entry.pk).update(
        body=entry.body.replace('"Product 0"', '"From the table"')
    )
    assert b'"From the table"' in listed(manager_client)
    ProductListEntry.objects.filter(pk=entry.pk).update(body=entry.body)
    assert listed(manager_client) == first == built_afresh(manager_client)


@pg
def test_a_page_of_valid_entries_costs_three_queries_and_stores_nothing(shop, anon):
    def page_queries() -> list[str]:
        cache.clear()
        with CaptureQueriesContext(connection) as captured:
            assert anon.get(f"{API}/products", {"per_page": 100}).status_code == 200
        return [query["sql"] for query in captured]

    first = page_queries()
    assert len(first) == 4  # the settings, the COUNT, the page, the entries it built stored
    assert first[3].startswith('INSERT INTO "store_catalog_productlistentry"')
    assert len(page_queries()) == 3  # nothing to store
    # One stale entry: the page stores it again, and only it.
    product = shop["products"][2]
    versions = dict(ProductListEntry.objects.values_list("product_id", "row_version"))
    Product.objects.filter(pk=product.pk).update(stock_quantity=7)
    again = page_queries()
    assert len(again) == 4
    assert again[3].startswith('INSERT INTO "store_catalog_productlistentry"')
    now = dict(ProductListEntry.objects.values_list("product_id", "row_version"))
    assert {pk for pk in now if now[pk] != versions[pk]} == {product.pk}
    assert '"stock_quantity":7' in ProductListEntry.objects.get(product_id=product.pk).body


@pg
def test_an_entry_stored_from_an_older_snapshot_is_never_served(shop, manager_client):
    """A page that read a product before a change committed and stores its entry after: the
    entry carries the row version it was built from, so it is stored in vain."""
    product = shop["products"][1]
    listed(manager_client)
    old = ProductListEntry.objects.get(product_id=product.pk)
    manager_client.patch(f"{API}/products/{product.pk}", {"title": "Renamed"}, format="json")
    # The slow page stores what it built before the change, stamped as it was built.
    list_entries.store({product.pk: (old.row_version, old.generation, old.body)}, old.base)
    served = assert_served_as_built(manager_client)
    assert b'"Renamed"' in served
    assert b'"Product 1"' not in served


@pg
def test_the_search_and_the_rebuilt_pages_read_them_too(shop, anon, manager_client):
    listed(manager_client)
    product = shop["products"][0]
    ids = [product.pk]
    assert product_json.entries_in_order(ids)[0][1] == (
        ProductListEntry.objects.get(product_id=product.pk).body
    )
    Product.objects.filter(pk=product.pk).update(title="Changed")
    assert '"Changed"' in product_json.entries_in_order(ids)[0][1]
    assert '"Changed"' in ProductListEntry.objects.get(product_id=product.pk).body
    cache.clear()
    found = anon.get(f"{API}/products", {"q": "Changed"}).json()["data"]
    assert [entry["id"] for entry in found] == ids


# --- Every write leaves no stale entry served ----------------------------------------------------


def _edit_title(shop, client):
    product = shop["products"][0]
    return client.patch(f"{API}/products/{product.pk}", {"title": "New title"}, format="json")


def _edit_price(shop, client):
    product = shop["products"][1]
    return client.patch(f"{API}/products/{product.pk}", {"sale_price": "5.00"}, format="json")


def _switch_brand(shop, client):
    product = shop["products"][0]
    brand = shop["brands"][1].pk
    return client.patch(f"{API}/products/{product.pk}", {"brand": brand}, format="json")


def _switch_image(shop, client):
    product = shop["products"][0]
    image = media_row().pk
    return client.patch(f"{API}/products/{product.pk}", {"featured_image_id": image}, format="json")


def _rename_brand(shop, client):
    brand = shop["brands"][0]
    return client.patch(f"{API}/brands/{brand.pk}", {"name": "Acme Renamed"}, format="json")


def _delete_brand(shop, client):
    return client.delete(f"{API}/brands/{shop['brands'][0].pk}")


def _rename_category(shop, client):
    category = shop["categories"][0]
    return client.patch(f"{API}/categories/{category.pk}", {"name": "Sneakers"}, format="json")


def _move_category(shop, client):
    """Its sort order and parent: the order of each entry's categories changes."""
    category = shop["categories"][2]
    parent = shop["categories"][1].pk
    return client.patch(
        f"{API}/categories/{category.pk}", {"sort_order": 0, "parent_id": parent}, format="json"
    )


def _delete_category(shop, client):
    return client.delete(f"{API}/categories/{shop['categories'][1].pk}")


def _categories_of_product(shop, client):
    product = shop["products"][0]
    categories = [shop["categories"][2].pk]
    return client.patch(f"{API}/products/{product.pk}", {"category_ids": categories}, format="json")


def _image_alt_text(shop, client):
    image = shop["products"][3].featured_image_id
    return client.patch(f"{API}/media/{image}", {"alt": "A new text"}, format="json")


def _delete_image(shop, client):
    return client.delete(f"{API}/media/{shop['products'][3].featured_image_id}")


def _delete_product(shop, client):
    return client.delete(f"{API}/products/{shop['products'][4].pk}")


WRITES = [
    _edit_title,
    _edit_price,
    _switch_brand,
    _switch_image,
    _rename_brand,
    _delete_brand,
    _rename_category,
    _move_category,
    _delete_category,
    _categories_of_product,
    _image_alt_text,
    _delete_image,
    _delete_product,
]


@pg
@pytest.mark.parametrize("write", WRITES, ids=[write.__name__[1:] for write in WRITES])
def test_no_write_through_the_api_leaves_a_stale_entry_served(write, shop, manager_client):
    before = listed(manager_client)
    assert stored_ids() == {product.pk for product in shop["products"]}
    response = write(shop, manager_client)
    assert response.status_code in (200, 204), response.content
    after = assert_served_as_built(manager_client)
    assert after != before  # the write shows in the list


@pg
def test_a_product_deleted_takes_its_entry_with_it(shop, manager_client):
    listed(manager_client)
    product = shop["products"][4]
    assert manager_client.delete(f"{API}/products/{product.pk}").status_code == 204
    assert product.pk not in stored_ids()


def _renditions(image: MediaImage) -> None:
    """As media_regenerate_renditions writes them (queryset update, then the signal)."""
    renditions = {
        size: {
            **value,
            "files": {fmt: f"store/new/{image.pk}-{size}.{fmt}" for fmt in value["files"]},
        }
        for size, value in image.renditions.items()
    }
    MediaImage.objects.filter(pk=image.pk).update(renditions=renditions)
    media_changed.send(sender=MediaImage, image_id=image.pk)


@pg
def test_new_renditions_of_an_image_leave_no_stale_entry(shop, manager_client):
    before = listed(manager_client)
    _renditions(shop["products"][2].featured_image)
    after = assert_served_as_built(manager_client)
    assert after != before
    assert b"store/new/" in after


@pg
@pytest.mark.parametrize("action", ["add", "remove", "clear", "set"])
def test_a_categorys_products_changed_from_its_side_leave_no_stale_entry(
    action, shop, manager_client
):
    """category.products.add/remove/clear/set: the m2m written from the category's side."""
    category: Category = shop["categories"][0]
    before = listed(manager_client)
    products = shop["products"]
    if action == "add":
        category.products.add(products[1])  # in the second and third categories
    elif action == "remove":
        category.products.remove(products[0])
    elif action == "clear":
        category.products.clear()
    else:
        category.products.set([products[1], products[2]])
    after = assert_served_as_built(manager_client)
    assert after != before


@pg
def test_a_products_categories_changed_on_the_model_leave_no_stale_entry(shop, manager_client):
    product = shop["products"][0]
    for change in (
        lambda: product.categories.add(shop["categories"][2]),
        lambda: product.categories.remove(shop["categories"][0]),
        lambda: product.categories.clear(),
    ):
        before = listed(manager_client)
        change()
        assert assert_served_as_built(manager_client) != before


# --- Random sequences of writes -------------------------------------------------------------------


def _random_write(rng: random.Random, shop) -> None:
    products = list(Product.objects.order_by("pk"))
    categories = list(Category.objects.order_by("pk"))
    product = rng.choice(products)
    kind = rng.randrange(9)
    if kind == 0:
        Product.objects.filter(pk=product.pk).update(title=f"T{rng.randrange(1000)}")
    elif kind == 1:
        product.categories.set(rng.sample(categories, rng.randrange(len(categories) + 1)))
    elif kind == 2:
        category = rng.choice(categories)
        category.name = f"C{rng.randrange(1000)}"
        category.sort_order = rng.randrange(5)
        category.save()
    elif kind == 3:
        brand = rng.choice(shop["brands"])
        brand.name = f"B{rng.randrange(1000)}"
        brand.save()
    elif kind == 4:
        Product.objects.filter(pk=product.pk).update(
            brand=rng.choice([None, *(b.pk for b in shop["brands"])])
        )
    elif kind == 5:
        image = MediaImage.objects.get(pk=product.featured_image_id or media_row().pk)
        image.alt_text = f"A{rng.randrange(1000)}"
        image.save()
    elif kind == 6:
        Product.objects.filter(pk=product.pk).update(featured_image=media_row())
    elif kind == 7:
        rng.choice(categories).products.add(product)
    else:
        Product.objects.filter(pk=product.pk).update(stock_quantity=rng.randrange(50))


@pg
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_writes_between_reads_never_serve_a_stale_entry(seed, shop, manager_client):
    rng = random.Random(seed)
    for _ in range(8):
        listed(manager_client)  # entries stored for the state so far
        for _ in range(rng.randrange(1, 3)):
            _random_write(rng, shop)
        assert_served_as_built(manager_client)


# --- The rebuild command -------------------------------------------------------------------------


@pg
def test_the_rebuild_command_builds_every_products_entry(shop, manager_client, capsys):
    before = listed(manager_client)
    ProductListEntry.objects.update(body="{}", row_version="0")  # stale, and wrong
    product = shop["products"][0]
    Product.categories.through.objects.filter(product_id=product.pk).delete()  # no signal
    call_command("rebuild_list_entries")
    assert "6 list entries built." in capsys.readouterr().out
    assert stored_ids() == {p.pk for p in shop["products"]}
    assert not ProductListEntry.objects.filter(body="{}").exists()
    after = listed(manager_client)
    assert after == built_afresh(manager_client)
    assert after != before  # the categories deleted behind the signals' back show


@pytest.mark.sqlite_only
def test_the_rebuild_command_refuses_where_entries_are_not_kept(db):
    with pytest.raises(CommandError, match="PostgreSQL"):
        call_command("rebuild_list_entries")


@pytest.mark.sqlite_only
def test_nothing_is_kept_or_touched_on_sqlite(shop, manager_client):
    product = shop["products"][0]
    listed(manager_client)
    product.categories.add(shop["categories"][2])
    shop["brands"][0].save()
    assert not ProductListEntry.objects.exists()
    assert not list_entries.kept()
