"""Orders at scale (issue 11, points 6 and 8): `seed(n)` bulk-creates n orders with two lines
each (a tenth of them per customer, the rest guests with a billing address), `measure()` times
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

SEED_VERSION = "2"
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
STATUSES = ["pending", "processing", "on-hold", "completed", "cancelled", "shipped"]


def seed(n: int) -> None:
    from django.utils import timezone

    from store.customers.models import Customer
    from store.orders.models import Order, OrderItem
    from store.orders.services.orders import order_number_for

    rng = random.Random(11)  # noqa: S311 - seed data, not secrets
    customers = Customer.objects.bulk_create(
        [
            Customer(
                email=f"customer{c}@example.com",
                first_name=rng.choice(FIRST),
                last_name=rng.choice(LAST),
            )
            for c in range(max(1, n // 10))
        ],
        batch_size=BATCH,
    )
    start = Order.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    now = timezone.now()
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
            orders.append(
                Order(
                    pk=pk,
                    order_number=order_number_for(pk),
                    order_key=f"k{pk:012d}{rng.getrandbits(64):016x}",
                    status=STATUSES[i % len(STATUSES)],
                    currency="EUR",
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
                    item_count=quantity + 1,
                    created_at=created,
                    updated_at=created,
                )
            )
            for n_line, q in ((0, quantity), (1, 1)):
                word = WORDS[(i + n_line) % len(WORDS)]
                lines.append(
                    OrderItem(
                        order_id=pk,
                        title=f"{word} {rng.choice(WORDS).lower()} {i % 500}",
                        sku=f"{word[:3].upper()}-{i % 500}",
                        quantity=q,
                        unit_price=price,
                        subtotal=price * q,
                        total=price * q,
                    )
                )
        Order.objects.bulk_create(orders, batch_size=BATCH)
        OrderItem.objects.bulk_create(lines, batch_size=BATCH)
    _reset_sequence(Order)
    _vacuum(Order, OrderItem, Customer)


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


def measure() -> list[tuple[str, float, float]]:
    from store.orders.models import Order

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
    ]
    return [(label, _time(run), GOAL_MS) for label, run in cases]
