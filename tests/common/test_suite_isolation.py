"""What one test leaves to the next on the same xdist worker, in any order: a test with
`transaction=True` ends with a flush (on SQLite, a new copy of the template; on PostgreSQL, every
table emptied and the first rows copied back), and the next still
finds what the migrations wrote; a test that replaces the root logger's handlers gets them put
back."""

import logging

import pytest

from debugtools.handler import DatabaseHandler
from store.tax.models import TaxClass
from tests.fixtures.db import _restore_from_template
from tests.fixtures.isolation import own_handlers, root_logging_kept

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


@pytest.mark.sqlite_only
@pytest.mark.django_db(transaction=True)
def test_on_sqlite_a_transactional_test_ends_with_a_copy_of_the_template():
    from django.test import TransactionTestCase

    TaxClass.objects.create(name="Extra", slug="extra")
    TaxClass.objects.filter(slug="standard").delete()
    assert _restore_from_template(TransactionTestCase())  # the copy, not the flush
    assert default_classes() == DEFAULT_CLASSES


@pytest.mark.postgresql_only
@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_transactional_test_ends_with_the_first_rows_copied_back():
    from django.contrib.auth.models import Group, Permission
    from django.test import TransactionTestCase

    def state():
        return (
            default_classes(),
            sorted(Group.objects.values_list("pk", "name")),
            sorted(Permission.objects.values_list("pk", "codename")),
        )

    before = state()
    assert before[1], "the seeded roles"
    TaxClass.objects.create(name="Extra", slug="extra")
    TaxClass.objects.filter(slug="standard").delete()
    Group.objects.all().delete()
    assert _restore_from_template(TransactionTestCase())  # the copy, not the flush
    assert state() == before


def test_a_test_in_a_transaction_sees_them_too(db):
    assert default_classes() == DEFAULT_CLASSES


def test_a_test_that_replaces_the_root_loggers_handlers_leaves_them_as_they_were():
    root = logging.getLogger()
    before, level = own_handlers(root), root.level
    with root_logging_kept():
        root.handlers[:] = [logging.NullHandler()]  # as Celery's in-process worker does
        root.setLevel(logging.CRITICAL)
    assert own_handlers(root) == before
    assert any(isinstance(h, DatabaseHandler) for h in root.handlers)  # the debug log's
    assert root.level == level


@pytest.mark.django_db
def test_rows_written_counts_every_insert_update_and_delete_rolled_back_or_not():
    """The permission matrix's "nothing changed" rests on it: on both engines it moves with
    each kind of write, also one a savepoint rolled back, and stands still for a read."""
    from django.db import transaction

    from tests.fixtures.db import rows_written

    start = rows_written()
    default_classes()
    assert rows_written() == start
    extra = TaxClass.objects.create(name="Extra", slug="extra")
    assert rows_written() == start + 1
    TaxClass.objects.filter(pk=extra.pk).update(name="Extra rate")
    assert rows_written() == start + 2
    with transaction.atomic():
        extra.delete()
        transaction.set_rollback(True)
    assert rows_written() == start + 3
