"""common.compiled: fixed-shape queries compiled once per connection, run with new arguments."""

from datetime import datetime

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from common.compiled import CompiledByCount, CompiledQuery, instance
from tests.accounts.factories import UserFactory

pytestmark = pytest.mark.django_db


SAMPLE = ("sample@example.invalid", "Sample")
OTHER = ("other@example.invalid", "Other")


def by_email_and_name(email, name):
    return User.objects.filter(email=email, name=name).values_list(
        "id", "email", "date_joined", "is_active"
    )


def test_each_call_runs_the_sql_with_its_own_arguments_and_converts_the_columns():
    alice = UserFactory(email="alice@example.com", name="Alice")
    bob = UserFactory(email="bob@example.com", name="Bob", is_active=False)
    query = CompiledQuery(by_email_and_name, SAMPLE, OTHER)

    [row] = query.rows("alice@example.com", "Alice")
    assert row[:2] == [alice.pk, "alice@example.com"]
    assert isinstance(row[2], datetime)
    assert row[2].tzinfo is not None
    assert row[3] is True  # SQLite's 1 converted, as the ORM does
    assert query.rows("alice@example.com", "Bob") == []
    assert query.rows("bob@example.com", "Bob") == [
        [bob.pk, "bob@example.com", bob.date_joined, False]
    ]
    assert query.rows("nobody@example.com", "Alice") == []


def test_the_answers_are_the_orms():
    UserFactory(email="carol@example.com", name="Carol")
    query = CompiledQuery(by_email_and_name, SAMPLE, OTHER)
    expected = [list(r) for r in by_email_and_name("carol@example.com", "Carol")]
    assert len(expected) == 1
    assert query.rows("carol@example.com", "Carol") == expected


def test_one_query_per_call_and_the_compilation_is_kept():
    UserFactory(email="dan@example.com", name="Dan")
    query = CompiledQuery(by_email_and_name, SAMPLE, OTHER)
    query.rows("dan@example.com", "Dan")
    compiled = query._compiled[connections["default"]]
    with CaptureQueriesContext(connection) as queries:
        assert len(query.rows("dan@example.com", "Dan")) == 1
    assert len(queries.captured_queries) == 1
    assert query._compiled[connections["default"]] is compiled


def test_a_parameter_the_arguments_do_not_give_is_refused_at_the_first_call():
    # icontains sends "%x%", not the argument: the compiled SQL could not be refilled.
    query = CompiledQuery(
        lambda part: User.objects.filter(email__icontains=part).values_list("id"),
        ("sample",),
        ("other",),
    )
    with pytest.raises(AssertionError, match="not one of the arguments"):
        query.rows("x")


def test_an_argument_the_orm_writes_into_the_sql_is_refused():
    # filter(is_active=True) compiles to WHERE "is_active": False would be answered as True.
    query = CompiledQuery(
        lambda email, active: User.objects.filter(email=email, is_active=active).values_list("id"),
        ("sample@example.invalid", True),
        ("other@example.invalid", False),
    )
    with pytest.raises(AssertionError, match=r"not a parameter|changes with the arguments"):
        query.rows("x@example.com", False)


def test_sample_arguments_must_be_distinct():
    with pytest.raises(ValueError, match="distinct"):
        CompiledQuery(by_email_and_name, ("same", "same"), OTHER)
    with pytest.raises(ValueError, match="differ"):
        CompiledQuery(by_email_and_name, SAMPLE, (SAMPLE[0], "Other"))


def test_constants_of_the_query_stay_and_only_the_arguments_change():
    UserFactory(email="gil@example.com", name="Gil", type="reseller")
    UserFactory(email="hal@example.com", name="Hal", type="developer")
    query = CompiledQuery(
        lambda email: User.objects.filter(email=email, type="reseller").values_list("name"),
        ("sample@example.invalid",),
        ("other@example.invalid",),
    )
    assert query.rows("gil@example.com") == [["Gil"]]
    assert query.rows("hal@example.com") == []  # the constant "reseller" still applies


def test_an_argument_used_twice_fills_both_places():
    user = UserFactory(email="erin@example.com")
    query = CompiledQuery(
        lambda pk: User.objects.filter(id=pk, pk__gte=pk).values_list("email"), (-1,), (-2,)
    )
    assert query.rows(user.pk) == [["erin@example.com"]]


def test_instance_makes_a_saved_model_instance():
    user = UserFactory(email="fay@example.com")
    names = [f.attname for f in User._meta.concrete_fields]
    values = list(User.objects.filter(pk=user.pk).values_list(*names).get())
    made = instance(User, names, values, "default")
    assert made.pk == user.pk
    assert made.email == "fay@example.com"
    assert made._state.adding is False
    assert made._state.db == "default"


def test_instances_are_the_orms_with_what_they_select_related(django_assert_num_queries):
    from accounts.models import AppPassword

    owner = UserFactory(email="ivy@example.com", name="Ivy")
    first = AppPassword.objects.create(user=owner, name="first", password_hash="a" * 64)
    second = AppPassword.objects.create(user=owner, name="second", password_hash="b" * 64)
    AppPassword.objects.create(user=UserFactory(), name="other", password_hash="c" * 64)
    query = CompiledQuery(
        lambda user_id: (
            AppPassword.objects.filter(user_id=user_id).select_related("user").order_by("id")
        ),
        (-1,),
        (-2,),
    )
    query.instances(owner.pk)  # compiled
    with django_assert_num_queries(1):
        made = query.instances(owner.pk)
        assert [p.pk for p in made] == [first.pk, second.pk]
        assert [p.user.email for p in made] == ["ivy@example.com"] * 2  # no query: selected
    assert made[0]._state.adding is False
    assert made[0].created_at == first.created_at
    assert query.instances(-5) == []


def test_instances_of_a_values_query_are_refused():
    query = CompiledQuery(by_email_and_name, SAMPLE, OTHER)
    with pytest.raises(TypeError, match="model instances"):
        query.instances("x@example.com", "X")


def test_model_from_row_converts_as_the_orm_does():
    from common.compiled import model_from_row

    user = UserFactory(email="jo@example.com", name="Jo")
    names = [f.column for f in User._meta.concrete_fields]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(names)} FROM {User._meta.db_table} WHERE id = %s",  # noqa: S608
            [user.pk],
        )
        row = cursor.fetchone()
    made = model_from_row(User, row, "default")
    assert made.pk == user.pk
    assert made.email == "jo@example.com"
    assert made.date_joined == user.date_joined  # an aware datetime on SQLite too
    assert made.is_active is True
    assert made._state.adding is False


def test_a_query_by_ids_is_compiled_per_count_and_answers_as_the_orm():
    users = [UserFactory(email=f"n{n}@example.com", name=f"N{n}") for n in range(4)]
    ids = [u.pk for u in users]
    query = CompiledByCount(
        lambda pks: User.objects.filter(pk__in=pks).order_by("pk").values_list("pk", "email"),
        most=3,
    )
    assert query.rows(ids[:2]) == [[ids[0], "n0@example.com"], [ids[1], "n1@example.com"]]
    assert query.rows([ids[2], ids[2], ids[3]]) == [  # repeated ids count once
        [ids[2], "n2@example.com"],
        [ids[3], "n3@example.com"],
    ]
    assert sorted(query._by_count) == [2]
    assert [row[0] for row in query.rows(ids)] == ids  # more than `most`: through the ORM
    assert query.rows([]) == []
    assert sorted(query._by_count) == [2]
    with CaptureQueriesContext(connection) as queries:
        assert query.rows([ids[3], ids[0]]) == [
            [ids[0], "n0@example.com"],
            [ids[3], "n3@example.com"],
        ]
    assert len(queries.captured_queries) == 1


def test_instances_by_ids():
    users = [UserFactory(email=f"m{n}@example.com") for n in range(2)]
    query = CompiledByCount(lambda pks: User.objects.filter(pk__in=pks).order_by("pk"))
    found = query.instances([u.pk for u in users])
    assert [u.email for u in found] == ["m0@example.com", "m1@example.com"]
    assert query.instances([]) == []


# --- Updates ----------------------------------------------------------------------------------


def _products(count: int):
    from tests.store.catalog.factories import make_product

    return [make_product(title=f"Case {n}", sku=f"CASE-{n}") for n in range(count)]


def test_a_case_update_sets_each_row_its_own_values_and_leaves_the_others(
    django_assert_num_queries,
):
    from common.compiled import CaseUpdate
    from store.catalog.models import Product

    first, second, untouched = _products(3)
    update = CaseUpdate(Product, ["stock_quantity", "stock_status"])
    with django_assert_num_queries(1):
        assert update.execute({first.pk: (7, "instock"), second.pk: (0, "outofstock")}) == 2
    rows = dict(Product.objects.values_list("pk", "stock_quantity"))
    statuses = dict(Product.objects.values_list("pk", "stock_status"))
    assert (rows[first.pk], statuses[first.pk]) == (7, "instock")
    assert (rows[second.pk], statuses[second.pk]) == (0, "outofstock")
    assert (rows[untouched.pk], statuses[untouched.pk]) == (
        untouched.stock_quantity,
        untouched.stock_status,
    )
    # The same count again runs the SQL compiled the first time, with the new values.
    compiled = update._by_count[2]
    with django_assert_num_queries(1):
        update.execute({second.pk: (3, "onbackorder"), untouched.pk: (4, "instock")})
    assert update._by_count[2] is compiled
    assert Product.objects.get(pk=second.pk).stock_quantity == 3
    assert Product.objects.get(pk=untouched.pk).stock_status == "instock"
    assert Product.objects.get(pk=first.pk).stock_quantity == 7


def test_a_case_update_adds_and_stamps_the_time_when_asked(django_assert_num_queries):
    from django.utils import timezone

    from common.compiled import CaseUpdate
    from store.catalog.models import Product

    first, second = _products(2)
    Product.objects.filter(pk__in=[first.pk, second.pk]).update(stock_quantity=10)
    before = timezone.now()
    update = CaseUpdate(Product, ["stock_quantity"], increment=True, now=["updated_at"])
    update.execute({first.pk: (5,), second.pk: (-3,)})
    update.execute({first.pk: (1,), second.pk: (1,)})
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.stock_quantity, second.stock_quantity) == (16, 8)
    assert first.updated_at >= before.replace(microsecond=0)


def test_a_case_update_of_more_rows_than_its_most_runs_one_statement_per_chunk(
    django_assert_num_queries,
):
    from common.compiled import CaseUpdate
    from store.catalog.models import Product

    products = _products(5)
    update = CaseUpdate(Product, ["stock_quantity"], most=2)
    with django_assert_num_queries(3):
        assert update.execute({p.pk: (100 + n,) for n, p in enumerate(products)}) == 5
    assert sorted(Product.objects.values_list("stock_quantity", flat=True)) == [
        100,
        101,
        102,
        103,
        104,
    ]
    assert sorted(update._by_count) == [1, 2]
    assert update.execute({}) == 0


def test_an_update_that_joins_another_table_is_refused():
    from common.compiled import CompiledUpdate
    from store.catalog.models import Product

    update = CompiledUpdate(
        lambda brand: (Product.objects.filter(brand__name=brand), {"stock_quantity": 1}),
        ("a",),
        ("b",),
    )
    with pytest.raises(AssertionError, match="one table"):
        update.execute("c")


# --- Inserts ----------------------------------------------------------------------------------


def test_insert_writes_the_row_save_would_and_sends_its_signals(django_assert_num_queries):
    from django.db.models.signals import post_save, pre_save

    from common.compiled import insert
    from common.models import OutboxMessage

    seen = []

    def pre(sender, instance, **kwargs):
        seen.append(("pre", instance.pk, kwargs["raw"]))

    def post(sender, instance, created, **kwargs):
        seen.append(("post", instance.pk, created))

    pre_save.connect(pre, sender=OutboxMessage, dispatch_uid="test-insert-pre")
    post_save.connect(post, sender=OutboxMessage, dispatch_uid="test-insert-post")
    try:
        saved = OutboxMessage(task="common.ping", payload=b"one", dedupe_key="k1")
        saved.save()
        inserted = []
        for n in range(2):  # the second runs the SQL compiled by the first
            with django_assert_num_queries(1):
                inserted.append(
                    insert(OutboxMessage(task="common.ping", payload=b"two", dedupe_key=f"i{n}"))
                )
    finally:
        pre_save.disconnect(sender=OutboxMessage, dispatch_uid="test-insert-pre")
        post_save.disconnect(sender=OutboxMessage, dispatch_uid="test-insert-post")
    first = inserted[0]
    assert first.pk
    assert inserted[1].pk == first.pk + 1
    assert not first._state.adding
    assert first._state.db == "default"
    assert seen[2:] == [
        ("pre", None, False),
        ("post", first.pk, True),
        ("pre", None, False),
        ("post", inserted[1].pk, True),
    ]
    columns = ["task", "payload", "dedupe_key", "created_at", "due_at", "sent_at", "attempts"]
    row = OutboxMessage.objects.filter(pk=first.pk).values(*columns).get()
    assert row["task"] == "common.ping"
    assert bytes(row["payload"]) == b"two"
    assert row["dedupe_key"] == "i0"
    assert row["attempts"] == 0
    assert row["sent_at"] is None
    assert row["created_at"] == first.created_at
    assert row["due_at"] == first.due_at


def test_insert_falls_back_to_save_for_a_row_with_its_key_or_an_expression():
    from django.db.models.functions import Now

    from common.compiled import insert
    from common.models import OutboxMessage

    given = insert(OutboxMessage(pk=987_654, task="common.ping", payload=b""))
    assert OutboxMessage.objects.filter(pk=987_654).exists()
    assert given.pk == 987_654
    timed = insert(OutboxMessage(task="common.ping", payload=b"", due_at=Now()))
    assert OutboxMessage.objects.get(pk=timed.pk).due_at is not None
