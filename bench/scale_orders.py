"""Orders at scale: `seed(n)` bulk-creates n orders, one a minute up to now, with two lines each
on PRODUCTS products (a third of them per customer, from n/10 customers made one every ten
orders, the rest guests with a billing address; one in twenty in USD; the sales paid, one in
ten of them partly refunded),
`measure()` times
on PostgreSQL the staff list of 100 (first and a deep page, by date and by total, filtered by
status) and the search by number, e-mail and name: the selector and the serialisation the
view runs, in process (the HTTP ratio against F-pk is bench_orders.py's).
"""

from __future__ import annotations

import random
import statistics
import time
from datetime import timedelta
from decimal import Decimal

SEED_VERSION = "3"
PRODUCTS = 500
BATCH = 5000
GOAL_MS = 50.0
FIRST = ["Ana", "Bo", "Chen", "Dana", "Eli", "Femi", "Gia", "Hugo", "Ines", "Jon", "Kim", "Lea"]
# 40 x 40 syllable pairs: 1,600 surnames, so that a name finds tens of orders, not thousands
SYLLABLES = [
    "pa", "do", "ki", "ro", "ma", "ne", "lu", "sa", "te", "vo", "gi", "ha", "zo", "mi",
    "be", "ra", "no", "li", "ta", "fe", "co", "du", "ve", "xa", "yo", "ju", "qui", "wel",
    "bran", "dor", "fin", "gal", "hor", "kel", "mar", "nor", "pel", "ster", "tor", "vin",
]  # fmt: skip
LAST = [f"{a}{b}s".capitalize() for a in SYLLABLES for b in SYLLABLES]
WORDS = ["Desk", "Lamp", "Chair", "Mug", "Shelf", "Rug", "Clock", "Vase", "Stool", "Frame"]
STATUSES = ["pending", "processing", "on_hold", "completed", "cancelled", "shipped"]


def seed(n: int) -> None:
    from django.utils import timezone

    from store.catalog.models import Product
    from store.customers.models import Customer
    from store.orders.choices import SALES
    from store.orders.models import Order, OrderItem
    from store.orders.services.orders import order_number_for

    rng = random.Random(11)  # noqa: S311 - seed data, not secrets
    products = Product.objects.bulk_create(
        [
            Product(
                title=f"{WORDS[k % len(WORDS)]} {k}",
                slug=f"scale-orders-{k}",
                sku=f"{WORDS[k % len(WORDS)][:3].upper()}-{k}",
                regular_price=Decimal(10 + k % 90),
                price=Decimal(10 + k % 90),
            )
            for k in range(PRODUCTS)
        ]
    )
    now = timezone.now()
    customers = Customer.objects.bulk_create(
        [
            Customer(
                email=f"customer{c}@example.com",
                first_name=rng.choice(FIRST),
                last_name=rng.choice(LAST),
                # as they came: one every ten orders, over the orders' time
                created_at=now - timedelta(minutes=n - 10 * c),
            )
            for c in range(max(1, n // 10))
        ],
        batch_size=BATCH,
    )
    start = Order.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    for offset in range(0, n, BATCH):
        orders, lines = [], []
        for i in range(offset, min(n, offset + BATCH)):
            pk = start + i + 1
            first, last = rng.choice(FIRST), rng.choice(LAST)
            customer = customers[i % len(customers)] if i % 3 == 0 else None
            email = customer.email if customer else f"guest{i}@shop{i % 97}.test"
            quantity = 1 + i % 3
            price = Decimal(rng.randint(500, 50_000)) / 100
            total = price * quantity + Decimal("4.90")
            created = now - timedelta(minutes=n - i)
            status = STATUSES[i % len(STATUSES)]
            sale = status in SALES
            paid = total if sale else Decimal(0)
            refunded = Decimal("4.90") if sale and i % 10 == 0 else Decimal(0)
            orders.append(
                Order(
                    pk=pk,
                    order_number=order_number_for(pk),
                    order_key=f"k{pk:012d}{rng.getrandbits(64):016x}",
                    status=status,
                    payment_status=(
                        ("partially_refunded" if refunded else "paid") if sale else "unpaid"
                    ),
                    currency="USD" if i % 20 == 7 else "EUR",
                    customer=customer,
                    billing_address={
                        "email": email,
                        "first_name": first,
                        "last_name": last,
                        "phone": f"+30 69{i:08d}",
                        "country": "GR",
                    },
                    subtotal=price * quantity,
                    shipping_total=Decimal("4.90"),
                    total=total,
                    amount_paid=paid,
                    amount_refunded=refunded,
                    item_count=quantity + 1,
                    created_at=created,
                    updated_at=created,
                )
            )
            for n_line, q in ((0, quantity), (1, 1)):
                product = products[(i * 7 + n_line * 13) % PRODUCTS]
                # the title as sold: the product's, an older name now and then
                title = product.title if rng.random() < 0.95 else f"{product.title} (old)"
                lines.append(
                    OrderItem(
                        order_id=pk,
                        product_id=product.pk,
                        title=title,
                        sku=product.sku,
                        quantity=q,
                        unit_price=price,
                        subtotal=price * q,
                        total=price * q,
                    )
                )
        Order.objects.bulk_create(orders, batch_size=BATCH)
        OrderItem.objects.bulk_create(lines, batch_size=BATCH)
    _reset_sequence(Order)
    _vacuum(Order, OrderItem, Customer, Product)


def _vacuum(*models) -> None:
    """What autovacuum does to a table loaded at once: the visibility map (index-only scans,
    as for the list's COUNT and deep pages) and the planner's statistics."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


def _reset_sequence(model) -> None:
    from django.core.management.color import no_style
    from django.db import connection

    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [model]):
            cursor.execute(sql)


def _time(call, repeat: int = 7) -> float:
    call()  # warm
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(runs)


def _list(**query):
    """The list view's work for `query` (total, page rows, serialisation), the total cached
    as it is between two writes."""
    from store.orders import selectors
    from store.orders.shapes import page_response

    full = {"page": 1, "per_page": 100, "orderby": "date", "order": "DESC", **query}

    def run():
        # what the view answers: on PostgreSQL the entries written by the database, joined
        response = page_response(selectors.order_page(full))
        return response.data if hasattr(response, "data") else response.content

    return run


def _report(path: str, **query):
    """A store report through the in-process client (view, serialisation, middleware)."""
    from rest_framework.test import APIClient

    from accounts.models import User
    from tests.fixtures.store import basic_auth, shop_manager

    user = User.objects.filter(email="scale-reports@example.com").first()
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=basic_auth(user or shop_manager("scale-reports@example.com"))
    )

    def run():
        response = client.get(f"/rest/ec/v1{path}", query)
        if response.status_code != 200:
            raise RuntimeError(f"{path}: {response.status_code} {response.content[:300]!r}")

    return run


def measure() -> list[tuple[str, float, float]]:
    from store.orders.models import Order
    from store.reports import rollups

    rollups.close_days()  # as the nightly task leaves them: every day before today closed

    count = Order.objects.count()
    deep = max(1, (count // 100) // 2)
    middle = Order.objects.order_by("pk").values_list("order_number", flat=True)[count // 2]
    name = Order.objects.order_by("pk").values_list("billing_address__last_name", flat=True)[4711]
    cases = [
        ("orders: list of 100, first page", _list()),
        (f"orders: list of 100, page {deep}", _list(page=deep)),
        ("orders: list of 100 by total", _list(orderby="total", order="ASC")),
        ("orders: list of 100, status processing", _list(status=["processing"])),
        ("orders: search by number", _list(search=middle)),
        ("orders: search by number prefix", _list(search=middle[:-2])),
        ("orders: search by e-mail", _list(search="guest4711@shop")),
        ("orders: search by e-mail part", _list(search="guest4711")),
        ("orders: search by name", _list(search=name)),
        # the reports read their rollups (bench/scale_reports.py compares 1,000 orders)
        ("reports: /orders/stats", _report("/orders/stats")),
        ("reports: /dashboard/stats, 30 days", _report("/dashboard/stats")),
        ("reports: /dashboard/stats, year", _report("/dashboard/stats", period="year")),
        ("reports: /customers/stats", _report("/customers/stats")),
        (
            "reports: /customers-with-stats by total",
            _report("/customers-with-stats", orderby="total_spent"),
        ),
    ]
    return [(label, _time(run), GOAL_MS) for label, run in cases]
