"""CSV exports of the admin lists: selected rows, streamed, sensible columns, and cells a
spreadsheet cannot run as formulas (OWASP CSV injection)."""

import csv
import io
from datetime import UTC, datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from common.csv_export import cell
from tests.accounts.factories import UserFactory
from tests.admin_forms import csrf_client, post_action
from tests.licensing.factories import LicenseFactory, ProductFactory
from tests.store.customers.factories import CustomerFactory
from tests.store.orders.factories import line, make_order, stocked


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("=1+2", "'=1+2"),
        ("+31 20 555", "'+31 20 555"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        (None, ""),
        (True, "yes"),
        (Decimal("12.50"), "12.50"),
        (datetime(2027, 1, 31, 12, 0, tzinfo=UTC), "2027-01-31T12:00:00Z"),
    ],
)
def test_cells_never_start_a_formula(value, expected):
    assert cell(value) == expected


def read(response) -> list[dict]:
    assert response["Content-Type"] == "text/csv"
    assert response.streaming
    text = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(text)))


@pytest.fixture
def staff(db):
    return UserFactory(email="staff@example.com", is_staff=True, is_superuser=True)


@pytest.mark.django_db
def test_licences_export_the_selected_rows(staff):
    product = ProductFactory(slug="seo-pro")
    owner = UserFactory(email="=cmd|' /C calc'!A0@example.com")
    chosen = LicenseFactory(owner=owner, product=product)
    LicenseFactory(product=product)  # not selected
    response = post_action(
        csrf_client(staff),
        reverse("admin:licensing_license_changelist"),
        "export_csv",
        [chosen.pk],
    )
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith('attachment; filename="licences-')
    [row] = read(response)
    assert row["license_key"] == chosen.license_key
    assert row["product"] == "seo-pro"
    assert row["owner"] == "'" + owner.email  # a formula no more
    assert owner.email.startswith("=")
    assert (row["tier"], row["status"], row["customer"]) == ("starter", "active", "")
    assert row["expires_at"] == chosen.expires_at.isoformat().replace("+00:00", "Z")


@pytest.mark.django_db
def test_orders_export_with_their_amounts(staff):
    order = make_order(
        line(stocked(price="20.00"), 2),
        billing_address={"first_name": "Ana", "last_name": "-Lee", "country": "GR"},
        shipping_total="5.00",
    )
    response = post_action(
        csrf_client(staff),
        reverse("admin:store_orders_order_changelist"),
        "export_csv",
        [order.pk],
    )
    [row] = read(response)
    assert (row["order_number"], row["status"], row["total"]) == (
        order.order_number,
        "pending",
        "45.00",
    )
    assert (row["billing_name"], row["billing_country"], row["item_count"]) == (
        "Ana -Lee",
        "GR",
        "2",
    )
    assert row["customer_email"] == ""


@pytest.mark.django_db
def test_customers_export_and_a_large_selection_streams(staff):
    customers = [CustomerFactory(company="@Acme" if i == 0 else "Beta") for i in range(30)]
    browser = csrf_client(staff)
    response = post_action(
        browser,
        reverse("admin:store_customers_customer_changelist"),
        "export_csv",
        [c.pk for c in customers],
    )
    rows = read(response)
    assert len(rows) == 30
    assert {row["company"] for row in rows} == {"'@Acme", "Beta"}
    assert list(rows[0]) == [
        "email",
        "first_name",
        "last_name",
        "company",
        "phone",
        "account",
        "created_at",
    ]
