"""Real concurrent transactions (PostgreSQL): a review's change racing its product's deletion."""

import pytest

from common.errors import ServiceError
from store.catalog.services import products as product_services
from store.reviews import services as review_services
from store.reviews.models import Review
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.store.catalog.factories import make_product

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]

CHANGES = {
    "delete": lambda review_id: review_services.review_delete(review_id=review_id),
    "update": lambda review_id: review_services.review_update(
        review_id=review_id, fields={"rating": 3}
    ),
}


def _race_once(change: str, attempt: int) -> None:
    product = make_product(title=f"Lamp {attempt}")
    review = Review.objects.create(
        product=product, user=UserFactory(), rating=5, content="Bright", status="approved"
    )
    results = race(
        lambda: CHANGES[change](review.pk),
        lambda: product_services.product_delete(product_id=product.pk),
    )
    assert results[1] is None, results  # the product's deletion always goes through
    outcome = results[0]
    assert not isinstance(outcome, Exception) or (
        isinstance(outcome, ServiceError) and outcome.code == "review_not_found"
    ), results
    assert not Review.objects.filter(pk=review.pk).exists()


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_review_changed_while_its_product_is_deleted_waits_and_finds_it_gone(change):
    """Both take the product's lock first: no deadlock (a 500), the review's change either
    happened before the deletion or answers 404 after it."""
    for attempt in range(5):
        _race_once(change, attempt)
