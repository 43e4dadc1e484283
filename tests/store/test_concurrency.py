"""Real concurrent transactions (PostgreSQL): the store's once-only rules hold under races."""

import pytest

from common.errors import ServiceError
from store.catalog.models import Product, Variant
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services
from store.reviews import services as review_services
from store.reviews.models import Review, ReviewVote
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.store.catalog.factories import TermFactory, make_product

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_helpful_votes_of_one_person_racing_count_once():
    product = make_product(title="Lamp")
    author, voter = UserFactory(), UserFactory()
    review = Review.objects.create(
        product=product, user=author, author_name="A", rating=5, content="x", status="approved"
    )
    results = race(
        *[lambda: review_services.review_vote_helpful(review_id=review.pk, user=voter)] * 4
    )
    assert [counted for _review, counted in results].count(True) == 1, results
    review.refresh_from_db()
    assert review.helpful_count == 1
    assert ReviewVote.objects.count() == 1


def test_one_persons_reviews_racing_make_one_review():
    product = make_product(title="Lamp")
    user = UserFactory()
    results = race(
        *[
            lambda: review_services.review_submit(
                product_id=product.pk, user=user, rating=5, content="x"
            )
        ]
        * 3
    )
    assert sum(isinstance(r, Review) for r in results) == 1, results
    assert all(isinstance(r, (Review, ServiceError)) for r in results), results
    assert Review.objects.count() == 1


def test_the_same_variant_combination_racing_is_created_once():
    shirt = make_product(title="Shirt", type="variable")
    red = TermFactory()
    fields = {"attributes": [{"attribute_id": red.attribute_id, "term_id": red.pk}]}
    results = race(
        *[lambda: variant_services.variant_create(product_id=shirt.pk, fields=fields)] * 3
    )
    assert sum(isinstance(r, Variant) for r in results) == 1, results
    assert Variant.objects.count() == 1


def test_the_same_sku_racing_is_taken_once():
    def create():
        return product_services.product_create(fields={"title": "Lamp", "sku": "RACE-1"})

    results = race(create, create, create)
    assert sum(isinstance(r, Product) for r in results) == 1, results
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refusals} == {"duplicate_sku"}, results
    assert Product.objects.filter(sku="RACE-1").count() == 1


def test_the_same_title_racing_gets_distinct_slugs():
    results = race(*[lambda: product_services.product_create(fields={"title": "Lamp"})] * 3)
    assert all(isinstance(r, Product) for r in results), results
    assert sorted(Product.objects.values_list("slug", flat=True)) == ["lamp", "lamp-2", "lamp-3"]
