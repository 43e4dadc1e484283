"""The suite's own database: a test with `transaction=True` ends with a flush, and the test
that runs after it on the same worker (in any order) still finds what the migrations wrote."""

import pytest

from store.tax.models import TaxClass

DEFAULT_CLASSES = ["standard", "reduced-rate", "zero-rate"]  # store_tax 0001, a data migration


def default_classes() -> list[str]:
    return list(TaxClass.objects.order_by("sort_order").values_list("slug", flat=True))


@pytest.mark.django_db(transaction=True)
def test_a_flushed_database_keeps_the_data_migrations_rows():
    assert default_classes() == DEFAULT_CLASSES
    TaxClass.objects.filter(slug="zero-rate").delete()  # whatever a test does, the flush undoes


@pytest.mark.django_db(transaction=True)
def test_and_so_does_the_next_test_after_a_flush():
    assert default_classes() == DEFAULT_CLASSES
    TaxClass.objects.filter(slug="reduced-rate").delete()


def test_a_test_in_a_transaction_sees_them_too(db):
    assert default_classes() == DEFAULT_CLASSES
