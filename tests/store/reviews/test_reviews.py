import pytest

from store.catalog.models import Product
from store.reviews.models import Review, ReviewVote
from store.settings import services as settings_services
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error
from tests.store.catalog.factories import make_product

pytestmark = pytest.mark.django_db


@pytest.fixture
def lamp():
    return make_product(title="Lamp")


def submit(client, product, **fields):
    fields.setdefault("rating", 4)
    fields.setdefault("content", "Bright and sturdy.")
    return client.post(f"{API}/products/{product.pk}/reviews", fields, format="json")


def review_for(product, *, rating=5, status="approved", user=None, **fields):
    user = user or UserFactory()
    return Review.objects.create(
        product=product,
        user=user,
        author_name=user.name,
        author_email=user.email,
        rating=rating,
        content="Text",
        status=status,
        **fields,
    )


def test_submitting_needs_a_login(anon, lamp):
    error(submit(anon, lamp), 401, "not_logged_in")
    assert not Review.objects.exists()


def test_a_submitted_review_waits_for_moderation(customer_client, customer, anon, lamp):
    response = submit(customer_client, lamp, rating=5, title="Great")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["rating"], body["title"], body["author_name"]) == (
        "pending",
        5,
        "Great",
        customer.name,
    )
    assert "author_email" not in body
    assert anon.get(f"{API}/products/{lamp.pk}/reviews").json()["data"] == []
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (0, "0.00")


def test_without_moderation_it_is_published_at_once(customer_client, anon, lamp):
    settings_services.settings_update(section="reviews", values={"moderation_required": False})
    assert submit(customer_client, lamp, rating=3).json()["status"] == "approved"
    assert len(anon.get(f"{API}/products/{lamp.pk}/reviews").json()["data"]) == 1
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (1, "3.00")


def test_one_review_per_person_and_product(customer_client, lamp):
    submit(customer_client, lamp)
    error(submit(customer_client, lamp), 409, "review_exists")
    assert Review.objects.count() == 1


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"rating": 0}, "rating"),
        ({"rating": 6}, "rating"),
        ({"rating": 4.5}, "rating"),
        ({"content": ""}, "content"),
    ],
)
def test_invalid_reviews(customer_client, lamp, fields, param):
    body = error(submit(customer_client, lamp, **fields), 400, "invalid_param")
    assert param in body["data"]["params"]
    assert not Review.objects.exists()


def test_no_reviews_for_unknown_or_unpublished_products(customer_client):
    draft = make_product(title="Draft", status="draft")
    error(submit(customer_client, draft), 404, "product_not_found")
    error(
        customer_client.post(
            f"{API}/products/999/reviews", {"rating": 5, "content": "x"}, format="json"
        ),
        404,
    )


def test_reviews_can_be_turned_off(customer_client, lamp):
    settings_services.settings_update(section="reviews", values={"enabled": False})
    error(submit(customer_client, lamp), 403, "reviews_disabled")


def test_a_products_published_reviews_paged_filtered_and_ordered(anon, lamp):
    old = review_for(lamp, rating=5, helpful_count=1)
    new = review_for(lamp, rating=2, helpful_count=7)
    review_for(lamp, rating=4, status="pending")
    review_for(lamp, rating=1, status="rejected")
    body = anon.get(f"{API}/products/{lamp.pk}/reviews").json()
    assert [r["id"] for r in body["data"]] == [new.pk, old.pk]
    assert body["meta"] == {"page": 1, "per_page": 10, "total": 2, "total_pages": 1}
    assert [
        r["id"] for r in anon.get(f"{API}/products/{lamp.pk}/reviews", {"rating": 5}).json()["data"]
    ] == [old.pk]
    ordered = anon.get(
        f"{API}/products/{lamp.pk}/reviews", {"orderby": "helpful", "order": "desc"}
    ).json()
    assert [r["id"] for r in ordered["data"]] == [new.pk, old.pk]
    error(anon.get(f"{API}/products/{lamp.pk}/reviews", {"orderby": "length"}), 400)


def test_the_rating_summary(anon, lamp):
    review_for(lamp, rating=5)
    review_for(lamp, rating=4)
    review_for(lamp, rating=4)
    review_for(lamp, rating=1, status="pending")
    assert anon.get(f"{API}/products/{lamp.pk}/rating").json() == {
        "product_id": lamp.pk,
        "average_rating": "4.33",
        "review_count": 3,
        "distribution": {"5": 1, "4": 2, "3": 0, "2": 0, "1": 0},
    }
    empty = make_product(title="New")
    assert anon.get(f"{API}/products/{empty.pk}/rating").json()["average_rating"] == "0.00"
    error(anon.get(f"{API}/products/999/rating"), 404, "product_not_found")


def test_moderation_publishes_and_the_rating_follows(manager_client, customer_client, anon, lamp):
    review = submit(customer_client, lamp, rating=2).json()
    approved = manager_client.patch(
        f"{API}/reviews/{review['id']}", {"status": "approved"}, format="json"
    ).json()
    assert approved["status"] == "approved"
    assert approved["moderated_at"] is not None
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (1, "2.00")
    assert anon.get(f"{API}/products", {"min_rating": "2"}).json()["data"][0]["id"] == lamp.pk
    manager_client.put(f"{API}/reviews/{review['id']}", {"status": "rejected"}, format="json")
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (0, "0.00")
    error(anon.get(f"{API}/reviews/{review['id']}"), 404, "review_not_found")


def test_staff_edit_rating_and_delete(manager_client, lamp):
    review = review_for(lamp, rating=5)
    review_for(lamp, rating=3)
    manager_client.patch(f"{API}/reviews/{review.pk}", {"rating": 1}, format="json")
    lamp.refresh_from_db()
    assert str(lamp.average_rating) == "2.00"
    assert manager_client.delete(f"{API}/reviews/{review.pk}").status_code == 204
    lamp.refresh_from_db()
    assert (lamp.review_count, str(lamp.average_rating)) == (1, "3.00")
    error(manager_client.delete(f"{API}/reviews/{review.pk}"), 404, "review_not_found")


def test_the_moderation_queue(manager_client, lamp):
    pending = review_for(lamp, status="pending")
    review_for(lamp, status="approved")
    body = manager_client.get(f"{API}/reviews", {"status": "pending"}).json()
    assert [r["id"] for r in body["data"]] == [pending.pk]
    assert body["data"][0]["author_email"] == pending.author_email
    assert manager_client.get(f"{API}/reviews").json()["meta"]["total"] == 2
    assert manager_client.get(f"{API}/reviews", {"product_id": 999}).json()["data"] == []


def test_moderation_is_for_staff(anon, customer_client, lamp):
    review = review_for(lamp, status="pending")
    for client, status in ((anon, 401), (customer_client, 403)):
        error(client.get(f"{API}/reviews"), status)
        error(
            client.patch(f"{API}/reviews/{review.pk}", {"status": "approved"}, format="json"),
            status,
        )
        error(client.delete(f"{API}/reviews/{review.pk}"), status)
    review.refresh_from_db()
    assert review.status == "pending"


def test_who_sees_an_unpublished_review(anon, customer, customer_client, manager_client, lamp):
    mine = review_for(lamp, status="pending", user=customer)
    other = review_for(lamp, status="pending")
    error(anon.get(f"{API}/reviews/{mine.pk}"), 404)
    assert customer_client.get(f"{API}/reviews/{mine.pk}").json()["status"] == "pending"
    error(customer_client.get(f"{API}/reviews/{other.pk}"), 404)
    assert (
        manager_client.get(f"{API}/reviews/{other.pk}").json()["author_email"] == other.author_email
    )


def test_helpful_votes_count_once_per_person(store_client, lamp):
    review = review_for(lamp)
    voter = store_client(UserFactory())
    first = voter.post(f"{API}/reviews/{review.pk}/helpful").json()
    assert first == {
        "success": True,
        "message": "Thanks for your vote.",
        "data": {"review_id": review.pk, "helpful_count": 1, "counted": True},
    }
    again = voter.post(f"{API}/reviews/{review.pk}/helpful").json()
    assert again["data"] == {"review_id": review.pk, "helpful_count": 1, "counted": False}
    assert (
        store_client(UserFactory())
        .post(f"{API}/reviews/{review.pk}/helpful")
        .json()["data"]["helpful_count"]
        == 2
    )
    assert ReviewVote.objects.filter(review=review).count() == 2


def test_helpful_vote_refusals(anon, customer, customer_client, lamp):
    own = review_for(lamp, user=customer)
    pending = review_for(lamp, status="pending")
    error(anon.post(f"{API}/reviews/{own.pk}/helpful"), 401)
    error(customer_client.post(f"{API}/reviews/{own.pk}/helpful"), 400, "own_review")
    error(customer_client.post(f"{API}/reviews/{pending.pk}/helpful"), 404, "review_not_found")
    assert not ReviewVote.objects.exists()


def test_deleting_a_product_deletes_its_reviews(manager_client, lamp):
    review_for(lamp)
    manager_client.delete(f"{API}/products/{lamp.pk}")
    assert not Review.objects.exists()
    assert not Product.objects.exists()
