"""/crm/segments, /crm/segments/{id}, /crm/segments/{id}/members, /crm/rfm."""

from __future__ import annotations

import pytest

from erp.crm import services
from erp.crm.models import Segment
from erp.crm.segments import rules_clean
from erp.crm.selectors import RFM_GRID, rfm_label
from store.common.errors import ServiceError
from tests.accounts.factories import UserFactory
from tests.erp.crm.conftest import BASE, make_contact, make_customer, paid_order
from tests.fixtures.store import error, grant

pytestmark = pytest.mark.django_db


def rules(*conditions, match="all"):
    return {
        "match": match,
        "conditions": [dict(zip(("field", "op", "value"), c, strict=True)) for c in conditions],
    }


def create(client, **body):
    return client.post(f"{BASE}/crm/segments", body, format="json")


def members(client, segment_id, **params):
    body = client.get(f"{BASE}/crm/segments/{segment_id}/members", params).json()
    return [m["name"] for m in body["members"]]


def test_segment_crud_and_contact_members(seller_client, django_assert_max_num_queries):
    make_contact(name="Ada", company="Engines Ltd", country="GB")
    make_contact(name="Grace", company="Navy", country="US")
    make_contact(name="Alan", company="Engines Ltd", country="GB", customer_id=make_customer().pk)
    response = create(
        seller_client,
        name="British engineers",
        target="contacts",
        rules=rules(("company", "contains", "engines"), ("country", "eq", "gb")),
    )
    assert response.status_code == 201, response.content
    segment = response.json()
    assert segment["rules"]["conditions"][1] == {"field": "country", "op": "eq", "value": "GB"}
    url = f"{BASE}/crm/segments/{segment['id']}"
    assert seller_client.get(url).json() == segment
    assert members(seller_client, segment["id"]) == ["Ada", "Alan"]
    patched = seller_client.patch(
        url,
        {"rules": rules(("is_customer", "eq", True), ("name", "eq", "grace"), match="any")},
        format="json",
    ).json()
    assert patched["rules"]["match"] == "any"
    assert members(seller_client, segment["id"]) == ["Alan", "Grace"]
    for index in range(30):
        make_contact(name=f"Zz {index}", country="GB", company="Engines")
    seller_client.patch(url, {"rules": rules(("country", "in", ["gb"]))}, format="json")
    with django_assert_max_num_queries(10):
        page = seller_client.get(f"{url}/members", {"per_page": 100}).json()
    assert page["total"] == 32
    listing = seller_client.get(f"{BASE}/crm/segments", {"target": "contacts"}).json()
    assert [s["name"] for s in listing["segments"]] == ["British engineers"]
    assert seller_client.get(f"{BASE}/crm/segments", {"target": "customers"}).json()["total"] == 0
    assert seller_client.delete(url).status_code == 204
    error(seller_client.get(url), 404, "segment_not_found")
    error(seller_client.get(f"{url}/members"), 404, "segment_not_found")


def test_customer_segments_filter_on_paid_order_figures(seller_client):
    big = make_customer("big@example.com", first_name="Big")
    small = make_customer("small@example.com", first_name="Small")
    make_customer("none@example.com", first_name="None")
    for _ in range(3):
        paid_order(big, "100.00", days_ago=5)
    paid_order(small, "20.00", days_ago=200)
    paid_order(small, "999.00", status="cancelled", payment="refunded")
    segment = create(
        seller_client,
        name="Spenders",
        target="customers",
        rules=rules(("total_spent", "gte", "50"), ("order_count", "gte", 2)),
    ).json()
    body = seller_client.get(f"{BASE}/crm/segments/{segment['id']}/members").json()
    assert [(m["email"], m["order_count"], m["total_spent"]) for m in body["members"]] == [
        ("big@example.com", 3, "300.00")
    ]
    lapsed = create(
        seller_client,
        name="Lapsed",
        target="customers",
        rules=rules(("last_order_at", "not_within_days", 90)),
    ).json()
    assert members(seller_client, lapsed["id"]) == ["None", "Small"]
    never = create(
        seller_client,
        name="Never",
        target="customers",
        rules=rules(("last_order_at", "is_empty", True)),
    ).json()
    assert members(seller_client, never["id"]) == ["None"]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"rules": "company = 'x'"}, "rules"),
        ({"rules": {"match": "all", "conditions": []}}, "rules.conditions"),
        (
            {
                "rules": {
                    "match": "some",
                    "conditions": [{"field": "name", "op": "eq", "value": "x"}],
                }
            },
            "rules.match",
        ),
        (
            {"rules": {"conditions": [{"field": "name__startswith", "op": "eq", "value": "x"}]}},
            "rules.conditions.0.field",
        ),
        (
            {"rules": {"conditions": [{"field": "owner__password", "op": "eq", "value": "x"}]}},
            "rules.conditions.0.field",
        ),
        (
            {"rules": {"conditions": [{"field": "name", "op": "regex", "value": ".*"}]}},
            "rules.conditions.0.op",
        ),
        (
            {"rules": {"conditions": [{"field": "country", "op": "eq", "value": "XX"}]}},
            "rules.conditions.0.value",
        ),
        (
            {"rules": {"conditions": [{"field": "name", "op": "eq", "value": {"a": 1}}]}},
            "rules.conditions.0.value",
        ),
        ({"rules": {"conditions": [{"field": "name", "op": "eq"}]}}, "rules.conditions.0"),
        (
            {"rules": {"conditions": [{"field": "created_at", "op": "before", "value": "soon"}]}},
            "rules.conditions.0.value",
        ),
        (
            {"rules": {"conditions": [{"field": "owner_id", "op": "eq", "value": 2**70}]}},
            "rules.conditions.0.value",
        ),
        (
            {
                "target": "customers",
                "rules": {"conditions": [{"field": "job_title", "op": "eq", "value": "x"}]},
            },
            "rules.conditions.0.field",
        ),
        ({"target": "orders"}, "target"),
        ({"name": ""}, "name"),
    ],
)
def test_invalid_rules_are_refused(seller_client, body, param):
    base = {"name": "S", "target": "contacts", "rules": rules(("name", "eq", "x"))}
    answer = error(create(seller_client, **{**base, **body}), 400, "invalid_param")
    assert param in answer["data"]["params"], answer
    assert not Segment.objects.exists()


def test_names_are_unique_and_a_new_target_needs_rules_for_it(seller_client):
    first = create(
        seller_client, name="A", target="contacts", rules=rules(("job_title", "eq", "CEO"))
    ).json()
    error(
        create(seller_client, name="A", target="contacts", rules=rules(("name", "eq", "x"))),
        400,
        "invalid_param",
    )
    url = f"{BASE}/crm/segments/{first['id']}"
    answer = error(
        seller_client.patch(url, {"target": "customers"}, format="json"), 400, "invalid_param"
    )
    assert "rules.conditions.0.field" in answer["data"]["params"]
    assert Segment.objects.get().target == "contacts"


def test_rfm_scores_customers_from_paid_orders(seller_client, django_assert_max_num_queries):
    champion = make_customer("champ@example.com", first_name="Champ")
    lost = make_customer("lost@example.com", first_name="Lost")
    others = [make_customer(f"c{i}@example.com", first_name=f"C{i}") for i in range(3)]
    for _ in range(5):
        paid_order(champion, "200.00", days_ago=2)
    paid_order(lost, "5.00", days_ago=400)
    for index, customer in enumerate(others):
        for _ in range(index + 1):
            paid_order(customer, "30.00", days_ago=30 * (index + 1))
    unpaid = make_customer("unpaid@example.com")
    paid_order(unpaid, "900.00", status="pending", payment="unpaid")
    paid_order(unpaid, "900.00", status="cancelled", payment="paid")
    paid_order(make_customer("usd@example.com"), "50.00", currency="USD")
    # credentials, capability, gate (2), store settings, then a COUNT, the windowed
    # aggregate and the page's customers: the same for any number of orders
    with django_assert_max_num_queries(9):
        body = seller_client.get(f"{BASE}/crm/rfm").json()
    assert body["total"] == 5
    rows = {row["customer"]["email"]: row for row in body["customers"]}
    assert "unpaid@example.com" not in rows
    top = body["customers"][0]
    assert (top["customer"]["email"], top["frequency"], top["monetary"]) == (
        "champ@example.com",
        5,
        "1000.00",
    )
    assert (top["scores"], top["score"], top["segment"]) == (
        {"recency": 5, "frequency": 5, "monetary": 5},
        "555",
        "champions",
    )
    bottom = rows["lost@example.com"]
    assert (bottom["scores"], bottom["segment"], bottom["days_since_last_order"]) == (
        {"recency": 1, "frequency": 1, "monetary": 1},
        "lost",
        400,
    )
    recent = seller_client.get(f"{BASE}/crm/rfm", {"ordering": "recency", "per_page": 2}).json()
    assert [r["customer"]["email"] for r in recent["customers"]] == [
        "champ@example.com",
        "c0@example.com",
    ]
    assert recent["total_pages"] == 3
    usd = seller_client.get(f"{BASE}/crm/rfm", {"currency": "usd"}).json()
    assert [(r["customer"]["email"], r["currency"]) for r in usd["customers"]] == [
        ("usd@example.com", "USD")
    ]
    error(seller_client.get(f"{BASE}/crm/rfm", {"ordering": "name"}), 400, "invalid_param")


def test_segments_and_rfm_need_the_crm_capability(store_client, erp_on):
    segment = Segment.objects.create(name="S", target="contacts", rules=rules(("name", "eq", "x")))
    other = store_client(grant(UserFactory(), "ec_manage_invoicing"))
    for method, path in (
        ("get", "/crm/segments"),
        ("post", "/crm/segments"),
        ("get", f"/crm/segments/{segment.pk}"),
        ("patch", f"/crm/segments/{segment.pk}"),
        ("delete", f"/crm/segments/{segment.pk}"),
        ("get", f"/crm/segments/{segment.pk}/members"),
        ("get", "/crm/rfm"),
    ):
        error(
            getattr(other, method)(f"{BASE}{path}", {"name": "T"}, format="json"),
            403,
            "insufficient_capability",
        )
    assert Segment.objects.get().name == "S"


def test_rules_refuse_nul_and_lone_surrogates_below_the_parser():
    for text in ("a\x00b", "a\ud800b"):
        _cleaned, problems = rules_clean(
            "contacts", {"conditions": [{"field": "name", "op": "eq", "value": text}]}
        )
        assert list(problems) == ["rules.conditions.0.value"]


def test_rfm_filters_by_segment_label_in_sql(seller_client):
    # ten customers: customer i ordered i + 1 times, the last one i * 20 days ago
    for index in range(10):
        customer = make_customer(f"r{index}@example.com")
        for _ in range(index + 1):
            paid_order(customer, "10.00", days_ago=(9 - index) * 20)
    everyone = seller_client.get(f"{BASE}/crm/rfm", {"per_page": 100}).json()["customers"]
    labels = {row["customer"]["email"]: row["segment"] for row in everyone}
    assert labels["r9@example.com"] == "champions"
    assert labels["r0@example.com"] == "lost"
    for label in set(labels.values()):
        page = seller_client.get(f"{BASE}/crm/rfm", {"segment": label, "per_page": 100}).json()
        assert {row["customer"]["email"] for row in page["customers"]} == {
            email for email, each in labels.items() if each == label
        }, label
        assert page["total"] == len(page["customers"])
    error(seller_client.get(f"{BASE}/crm/rfm", {"segment": "vip"}), 400, "invalid_param")


def test_the_rfm_grid_labels_every_pair_of_scores_once():
    cells = [(r, f) for r in range(1, 6) for f in range(1, 6)]
    covered = [
        (r, f)
        for (r_low, r_high), (f_low, f_high) in RFM_GRID.values()
        for r in range(r_low, r_high + 1)
        for f in range(f_low, f_high + 1)
    ]
    assert sorted(covered) == cells
    assert rfm_label(5, 1) == "new"
    assert rfm_label(2, 5) == "cant_lose"


def test_customer_members_in_a_bounded_number_of_queries(
    seller_client, django_assert_max_num_queries
):
    for index in range(25):
        customer = make_customer(f"m{index:02}@example.com", first_name=f"M{index:02}")
        paid_order(customer, "12.00", days_ago=index)
    segment = create(
        seller_client,
        name="Buyers",
        target="customers",
        rules=rules(("order_count", "gte", 1), ("email", "startswith", "m")),
    ).json()
    with django_assert_max_num_queries(8):
        body = seller_client.get(
            f"{BASE}/crm/segments/{segment['id']}/members", {"per_page": 100}
        ).json()
    assert body["total"] == 25
    assert body["members"][0] == {
        "type": "customer",
        "id": body["members"][0]["id"],
        "name": "M00",
        "email": "m00@example.com",
        "company": "",
        "phone": "",
        "customer_id": body["members"][0]["id"],
        "order_count": 1,
        "total_spent": "12.00",
        "last_order_at": body["members"][0]["last_order_at"],
    }


def test_the_services_check_what_the_serializers_check():
    with pytest.raises(ServiceError) as refused:
        services.segment_create(
            fields={"name": "S", "target": "orders", "rules": rules(("name", "eq", "x"))}
        )
    assert "target" in refused.value.errors
    contact = make_contact()
    with pytest.raises(ServiceError) as refused:
        services.activity_create(
            fields={
                "kind": "fax",
                "subject": "S",
                "due_at": "2026-01-01T00:00:00Z",
                "contact_id": contact.pk,
            }
        )
    assert "kind" in refused.value.errors
    with pytest.raises(ServiceError) as refused:
        services.lead_create(fields={"title": "T", "stage": "bogus"})
    assert "stage" in refused.value.errors
