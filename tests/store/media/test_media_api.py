import pytest
from django.core.files.storage import default_storage

from store.media.models import MediaImage
from store.settings import services as settings_services
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product
from tests.store.media.factories import image_bytes, upload

pytestmark = pytest.mark.django_db

SIZES = {"thumbnail", "medium", "large"}


def post_image(client, data=None, name="photo.jpg", content_type="image/jpeg", **fields):
    return client.post(
        f"{API}/media", {"file": upload(name, data, content_type), **fields}, format="multipart"
    )


def test_upload_a_jpeg_with_renditions(manager_client, media_dir):
    response = post_image(manager_client, image_bytes("JPEG", (1600, 900)), alt="A red square")
    assert response.status_code == 201, response.content
    body = response.json()
    image = MediaImage.objects.get(pk=body["id"])
    assert body["content_type"] == "image/jpeg"
    assert (body["width"], body["height"]) == (1600, 900)
    assert body["alt"] == "A red square"
    assert body["url"].startswith("/media/store/")
    assert body["url"].endswith(".jpg")
    assert set(image.renditions) == SIZES
    assert image.renditions["thumbnail"]["width"] == image.renditions["thumbnail"]["height"] == 150
    assert (image.renditions["medium"]["width"], image.renditions["medium"]["height"]) == (300, 169)
    assert (image.renditions["large"]["width"], image.renditions["large"]["height"]) == (1024, 576)
    for size in SIZES:
        files = image.renditions[size]["files"]
        assert set(files) == {"base", "webp", "avif"}
        assert files["base"].endswith(".jpg")
        for name in files.values():
            assert default_storage.exists(name)
            assert (media_dir / name).is_file()
    assert set(body["sources"]) == {"avif", "webp"}
    assert set(body["sources"]["avif"]) == SIZES
    assert body["thumbnail"].endswith("-thumbnail.jpg")


def test_the_type_comes_from_the_content_not_the_name(manager_client):
    response = post_image(
        manager_client, image_bytes("PNG"), name="holiday.jpg", content_type="image/jpeg"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["content_type"] == "image/png"
    assert body["url"].endswith(".png")
    assert body["original_name"] == "holiday.jpg"


def test_transparent_images_keep_transparency(manager_client):
    body = post_image(manager_client, image_bytes("PNG", mode="RGBA"), name="logo.png").json()
    image = MediaImage.objects.get(pk=body["id"])
    assert image.renditions["medium"]["files"]["base"].endswith(".png")


@pytest.mark.parametrize("fmt", ["GIF", "WEBP", "AVIF"])
def test_other_accepted_formats(manager_client, fmt):
    response = post_image(manager_client, image_bytes(fmt), name=f"x.{fmt.lower()}")
    assert response.status_code == 201, response.content
    assert response.json()["content_type"] == f"image/{fmt.lower()}"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"this is not an image at all", "invalid_image"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'></svg>", "invalid_image"),
        (image_bytes("BMP"), "unsupported_image_type"),
        (image_bytes("TIFF"), "unsupported_image_type"),
        (image_bytes("JPEG", (400, 400))[:300], "invalid_image"),
    ],
    ids=["text", "svg", "bmp", "tiff", "truncated"],
)
def test_bad_uploads_are_refused_and_nothing_is_stored(manager_client, media_dir, data, code):
    error(post_image(manager_client, data, name="photo.jpg"), 400, code)
    assert not MediaImage.objects.exists()
    assert not media_dir.exists() or not any(p.is_file() for p in media_dir.rglob("*"))


def test_the_size_cap_is_the_store_setting(manager_client, media_dir):
    settings_services.settings_update(section="media", values={"max_upload_size_mb": 1})
    big = b"\xff\xd8" + b"0" * (1024 * 1024 + 10)
    body = error(post_image(manager_client, big), 413, "file_too_large")
    assert "1 MB" in body["message"]
    assert not MediaImage.objects.exists()
    assert not media_dir.exists() or not any(p.is_file() for p in media_dir.rglob("*"))


def test_a_declared_length_over_the_cap_is_refused_before_reading(manager_client):
    settings_services.settings_update(section="media", values={"max_upload_size_mb": 1})
    response = manager_client.generic(
        "POST",
        f"{API}/media",
        b"",
        content_type="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(5 * 1024 * 1024),
    )
    error(response, 413, "file_too_large")


def test_too_many_pixels_are_refused(manager_client, settings):
    settings.STORE_MEDIA_MAX_PIXELS = 100 * 100
    error(post_image(manager_client, image_bytes("PNG", (200, 200))), 400, "image_too_large")


def test_webp_and_avif_follow_the_settings(manager_client):
    settings_services.settings_update(section="media", values={"avif_enabled": False})
    body = post_image(manager_client).json()
    assert set(body["sources"]) == {"webp"}


def test_the_file_field_is_required(manager_client):
    body = error(
        manager_client.post(f"{API}/media", {"alt": "x"}, format="multipart"), 400, "invalid_param"
    )
    assert "file" in body["data"]["params"]
    error(manager_client.post(f"{API}/media", {"file": "x"}, format="json"), 400, "invalid_param")


def test_media_needs_the_products_capability(anon, customer_client):
    error(post_image(anon), 401)
    error(post_image(customer_client), 403)
    error(anon.get(f"{API}/media"), 401)
    assert not MediaImage.objects.exists()


def test_list_search_read_edit_delete(manager_client):
    first = post_image(manager_client, title="Red chair").json()
    second = post_image(manager_client, title="Blue table").json()
    listed = manager_client.get(f"{API}/media").json()
    assert [m["id"] for m in listed["data"]] == [second["id"], first["id"]]
    assert listed["meta"] == {"page": 1, "per_page": 20, "total": 2, "total_pages": 1}
    assert [
        m["id"] for m in manager_client.get(f"{API}/media", {"search": "chair"}).json()["data"]
    ] == [first["id"]]
    assert manager_client.get(f"{API}/media/{first['id']}").json()["title"] == "Red chair"
    edited = manager_client.patch(
        f"{API}/media/{first['id']}", {"alt": "A chair"}, format="json"
    ).json()
    assert edited["alt"] == "A chair"
    assert edited["title"] == "Red chair"
    assert manager_client.delete(f"{API}/media/{first['id']}").status_code == 204
    assert not MediaImage.objects.filter(pk=first["id"]).exists()
    error(manager_client.get(f"{API}/media/{first['id']}"), 404, "media_not_found")


def test_deleting_an_image_removes_its_files_on_commit(
    manager_client, django_capture_on_commit_callbacks
):
    body = post_image(manager_client).json()
    image = MediaImage.objects.get(pk=body["id"])
    names = [image.file.name, *image.rendition_names()]
    assert all(default_storage.exists(n) for n in names)
    with django_capture_on_commit_callbacks(execute=True):
        manager_client.delete(f"{API}/media/{body['id']}")
    assert not any(default_storage.exists(n) for n in names)


def test_products_show_the_featured_image_sources_and_gallery(manager_client, anon):
    featured = post_image(manager_client, alt="Front").json()
    side = post_image(manager_client, alt="Side").json()
    product = make_product(
        title="Chair", featured_image_id=featured["id"], gallery_image_ids=[side["id"]]
    )
    body = anon.get(f"{API}/products/{product.pk}").json()
    assert body["featured_image"] == {
        "id": featured["id"],
        "url": featured["url"],
        "thumbnail": featured["thumbnail"],
        "medium": featured["medium"],
        "large": featured["large"],
        "alt": "Front",
        "width": 64,
        "height": 48,
    }
    assert body["image"] == featured["url"]
    assert body["image_sources"] == featured["sources"]
    assert body["gallery_image_ids"] == [side["id"]]
    assert body["gallery_images"][0]["alt"] == "Side"


def test_deleting_an_image_clears_it_from_products(manager_client, anon):
    body = post_image(manager_client).json()
    product = make_product(
        title="Chair", featured_image_id=body["id"], gallery_image_ids=[body["id"]]
    )
    manager_client.delete(f"{API}/media/{body['id']}")
    read = anon.get(f"{API}/products/{product.pk}").json()
    assert read["featured_image"] is None
    assert read["gallery_images"] == []


def test_regenerate_command(manager_client):
    from django.core.management import call_command

    body = post_image(manager_client).json()
    before = MediaImage.objects.get(pk=body["id"]).renditions
    settings_services.settings_update(section="media", values={"webp_enabled": False})
    call_command("regenerate_renditions", body["id"], stdout=__import__("io").StringIO())
    after = MediaImage.objects.get(pk=body["id"]).renditions
    assert set(after["thumbnail"]["files"]) == {"base", "avif"}
    assert after != before
