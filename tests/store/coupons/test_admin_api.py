"""/admin/coupons and /admin/coupons/{id}: the coupon record, its checks, the permission matrix."""

import pytest

from store.common.capabilities import manage
from store.coupons import services
from store.coupons.models import Coupon
from store.coupons.selectors import Customer
from tests.accounts.factories import UserFactory
from tests.fixtures.store import API, error, grant
from tests.store.catalog.factories import CategoryFactory, make_product
from tests.store.coupons.factories import make_coupon

pytestmark = pytest.mark.django_db

LIST = f"{API}/admin/coupons"


def detail(coupon_id):
    return f"{LIST}/{coupon_id}"


@pytest.fixture
def coupon_manager(store_client):
    return store_client(grant(UserFactory(), manage("coupons")))


def test_create_answers_the_full_record(manager_client):
    lamp = make_product(title="Lamp")
    shoes = CategoryFactory()
    response = manager_client.post(
        LIST,
        {
            "code": "Spring25",
            "description": "Spring sale",
            "discount_type": "percent",
            "amount": "25",
            "free_shipping": True,
            "expires_at": "2030-04-01T00:00:00Z",
            "minimum_amount": 20,
            "maximum_amount": "500.00",
            "usage_limit": 100,
            "usage_limit_per_user": 1,
            "individual_use": True,
            "exclude_sale_items": True,
            "product_ids": [lamp.pk],
            "excluded_category_ids": [shoes.pk],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    coupon = Coupon.objects.get()
    assert body == {
        "id": coupon.pk,
        "code": "Spring25",
        "description": "Spring sale",
        "discount_type": "percent",
        "amount": "25.00",
        "free_shipping": True,
        "expires_at": "2030-04-01T00:00:00Z",
        "minimum_amount": "20.00",
        "maximum_amount": "500.00",
        "usage_limit": 100,
        "usage_limit_per_user": 1,
        "usage_count": 0,
        "individual_use": True,
        "exclude_sale_items": True,
        "product_ids": [lamp.pk],
        "excluded_product_ids": [],
        "category_ids": [],
        "excluded_category_ids": [shoes.pk],
        "enabled": True,
        "created_at": body["created_at"],
        "updated_at": body["updated_at"],
    }


def test_defaults(manager_client):
    body = manager_client.post(LIST, {"code": "X"}, format="json").json()
    assert (body["discount_type"], body["amount"], body["enabled"], body["expires_at"]) == (
        "fixed_cart",
        "0.00",
        True,
        None,
    )


@pytest.mark.parametrize(
    ("body", "bad", "code"),
    [
        ({}, "code", "invalid_param"),
        ({"code": "has space"}, "code", "invalid_param"),
        ({"code": "x" * 51}, "code", "invalid_param"),
        ({"code": "P", "discount_type": "percent", "amount": 101}, "amount", "invalid_param"),
        ({"code": "P", "amount": -1}, "amount", "invalid_param"),
        ({"code": "P", "discount_type": "bogus"}, "discount_type", "invalid_param"),
        (
            {"code": "P", "minimum_amount": 50, "maximum_amount": 10},
            "maximum_amount",
            "invalid_param",
        ),
        ({"code": "P", "product_ids": [999999]}, "product_ids", "invalid_param"),
        ({"code": "P", "category_ids": [999999]}, "category_ids", "invalid_param"),
        ({"code": "P", "usage_limit": 0}, "usage_limit", "invalid_param"),
        ({"code": "P", "expires_at": "soon"}, "expires_at", "invalid_param"),
        ({"code": "P", "enabled": "yes"}, "enabled", "invalid_param"),
    ],
)
def test_invalid_coupons_are_refused(manager_client, body, bad, code):
    response = manager_client.post(LIST, body, format="json")
    assert bad in error(response, 400, code)["data"]["params"]
    assert not Coupon.objects.exists()


def test_codes_are_unique_without_regard_to_case(manager_client):
    make_coupon("SAVE")
    body = error(
        manager_client.post(LIST, {"code": "save"}, format="json"), 400, "duplicate_coupon_code"
    )
    assert "code" in body["data"]["params"]
    assert Coupon.objects.count() == 1


def test_included_and_excluded_at_once_is_refused(manager_client):
    lamp = make_product(title="Lamp")
    response = manager_client.post(
        LIST,
        {"code": "X", "product_ids": [lamp.pk], "excluded_product_ids": [lamp.pk]},
        format="json",
    )
    assert "excluded_product_ids" in error(response, 400)["data"]["params"]


def test_every_problem_is_named_at_once(manager_client):
    response = manager_client.post(
        LIST,
        {
            "code": "X",
            "discount_type": "percent",
            "amount": 200,
            "minimum_amount": 9,
            "maximum_amount": 1,
            "category_ids": [99999],
        },
        format="json",
    )
    assert set(error(response, 400)["data"]["params"]) == {
        "amount",
        "maximum_amount",
        "category_ids",
    }


def test_read_update_and_delete(manager_client):
    coupon = make_coupon("SAVE", "fixed_cart", 5)
    assert manager_client.get(detail(coupon.pk)).json()["code"] == "SAVE"
    response = manager_client.patch(
        detail(coupon.pk), {"amount": "7.50", "enabled": False}, format="json"
    )
    assert response.status_code == 200
    assert (response.json()["amount"], response.json()["enabled"], response.json()["code"]) == (
        "7.50",
        False,
        "SAVE",
    )
    response = manager_client.put(detail(coupon.pk), {"discount_type": "percent"}, format="json")
    assert response.json()["discount_type"] == "percent"
    response = manager_client.patch(detail(coupon.pk), {"amount": 150}, format="json")
    error(response, 400)
    coupon.refresh_from_db()
    assert str(coupon.amount) == "7.50"
    assert manager_client.delete(detail(coupon.pk)).status_code == 204
    assert not Coupon.objects.exists()
    error(manager_client.get(detail(coupon.pk)), 404, "coupon_not_found")
    error(
        manager_client.patch(detail(coupon.pk), {"amount": 1}, format="json"),
        404,
        "coupon_not_found",
    )
    error(manager_client.delete(detail(coupon.pk)), 404, "coupon_not_found")


def test_renaming_to_a_taken_code_is_refused(manager_client):
    make_coupon("ONE")
    two = make_coupon("TWO")
    error(
        manager_client.patch(detail(two.pk), {"code": "one"}, format="json"),
        400,
        "duplicate_coupon_code",
    )
    assert manager_client.patch(detail(two.pk), {"code": "two"}, format="json").status_code == 200


def test_a_used_coupon_cannot_be_deleted(manager_client):
    coupon = make_coupon("USED")
    services.coupon_uses_reserve(codes=["USED"], order_reference="o1", customer=Customer())
    error(manager_client.delete(detail(coupon.pk)), 409, "coupon_has_uses")
    services.coupon_uses_release(order_reference="o1")
    assert manager_client.delete(detail(coupon.pk)).status_code == 204


def test_list_filters_and_pages(manager_client):
    from datetime import timedelta

    from django.utils import timezone

    make_coupon("A1", "percent", 10)
    make_coupon("B2", "fixed_cart", 5, enabled=False)
    make_coupon(
        "C3",
        "fixed_product",
        1,
        expires_at=timezone.now() - timedelta(days=1),
        description="old boots",
    )
    body = manager_client.get(LIST).json()
    assert [c["code"] for c in body["data"]] == ["C3", "B2", "A1"]
    assert body["meta"] == {"page": 1, "per_page": 20, "total": 3, "total_pages": 1}
    codes = lambda **q: [c["code"] for c in manager_client.get(LIST, q).json()["data"]]  # noqa: E731
    assert codes(status="active") == ["A1"]
    assert codes(status="disabled") == ["B2"]
    assert codes(status="expired") == ["C3"]
    assert codes(discount_type="percent") == ["A1"]
    assert codes(search="boots") == ["C3"]
    assert codes(search="b2") == ["B2"]
    assert codes(orderby="code", order="asc") == ["A1", "B2", "C3"]
    assert codes(per_page=1, page=2) == ["B2"]
    error(manager_client.get(LIST, {"status": "nope"}), 400, "invalid_param")


def test_the_list_costs_a_fixed_number_of_queries(manager_client, django_assert_max_num_queries):
    lamp = make_product(title="Lamp")
    for n in range(2):
        make_coupon(f"C{n}", product_ids=[lamp.pk])
    with django_assert_max_num_queries(12):
        manager_client.get(LIST)
    for n in range(2, 20):
        make_coupon(f"C{n}", product_ids=[lamp.pk])
    with django_assert_max_num_queries(12):
        assert len(manager_client.get(LIST).json()["data"]) == 20


def test_permission_matrix(anon, customer_client, coupon_manager, admin_client_api, store_client):
    coupon = make_coupon("SAVE")
    for client in (anon,):
        error(client.get(LIST), 401, "not_logged_in")
        error(client.post(LIST, {"code": "N"}, format="json"), 401)
        error(client.get(detail(coupon.pk)), 401)
        error(client.delete(detail(coupon.pk)), 401)
    reviewer = store_client(grant(UserFactory(), manage("reviews")))
    for client in (customer_client, reviewer):
        error(client.get(LIST), 403, "insufficient_capability")
        error(client.post(LIST, {"code": "N"}, format="json"), 403)
        error(client.patch(detail(coupon.pk), {"amount": 1}, format="json"), 403)
        error(client.delete(detail(coupon.pk)), 403)
    assert Coupon.objects.count() == 1
    assert coupon_manager.get(LIST).status_code == 200
    assert admin_client_api.post(LIST, {"code": "N"}, format="json").status_code == 201
