"""store.common.pagination: one Page from a queryset or a list, and the two answers every
collection gives (`{data, meta}`, and a named key with the counts beside it)."""

import pytest

from store.common.pagination import Page, data_page, named_page, page_of, paginate
from store.customers.models import Customer

ROWS = [{"id": n} for n in range(1, 8)]


def test_a_list_is_cut_into_pages_with_its_true_total():
    page = page_of(ROWS, {"page": 3, "per_page": 3})
    assert (page.items, page.total, page.total_pages) == ([{"id": 7}], 7, 3)
    past = paginate(ROWS, page=4, per_page=3)
    assert (past.items, past.total, past.page) == ([], 7, 4)


@pytest.mark.django_db
def test_a_queryset_is_counted_and_read_in_two_queries(django_assert_num_queries):
    Customer.objects.bulk_create(Customer(email=f"c{n}@example.com") for n in range(5))
    with django_assert_num_queries(2):
        page = page_of(Customer.objects.order_by("email"), {"page": 2, "per_page": 2})
    assert [c.email for c in page.items] == ["c2@example.com", "c3@example.com"]
    assert (page.total, page.total_pages) == (5, 3)
    with django_assert_num_queries(1):  # past the end: the COUNT only
        assert paginate(Customer.objects.all(), page=9, per_page=2).items == []


def test_the_named_answer_renders_each_item_beside_the_counts():
    page = Page(items=[{"id": 1}, {"id": 2}], page=2, per_page=2, total=5)
    assert named_page("zones", page, lambda row: row["id"], provider="acs") == {
        "provider": "acs",
        "zones": [1, 2],
        "total": 5,
        "page": 2,
        "per_page": 2,
        "total_pages": 3,
    }
    assert named_page("skipped", page)["skipped"] == [{"id": 1}, {"id": 2}]  # as they are


def test_the_data_answer_carries_the_meta():
    page = Page(items=[{"id": 1}], page=1, per_page=20, total=1)
    assert data_page(page, lambda row: row["id"]) == {
        "data": [1],
        "meta": {"page": 1, "per_page": 20, "total": 1, "total_pages": 1},
    }
