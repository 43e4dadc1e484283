"""Orders at scale: `seed(n)` bulk-creates n orders, one a minute up to now, with two lines each
on PRODUCTS products (a third of them per customer, from n/10 customers made one every ten
orders, the rest guests with a billing address; one in twenty in USD; the sales paid, one in
ten of them partly refunded). CASES are the staff list of 100 (first and a middle page, by
date and by total, filtered by status) and the search by number, e-mail and name, over HTTP
against F-pk (bench/scale.py); the same seed at two sizes is what the store's reports are
measured on (bench/scale_reports.py).
"""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

from bench.harness.http_loop import HttpCase

SEED_VERSION = "3"
PRODUCTS = 500
BATCH = 5000
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


API = "/rest/ec/v1"
AUTH = {"Authorization": "{auth}"}
LIST_GOAL = 3.0  # bench_orders' goal for the first page (under load)
SEARCH_GOAL = 4.0  # a search through its index: the catalog filters' goal (bench/README.md)


def _case(label: str, query: str, goal: float) -> HttpCase:
    return HttpCase(label, f"{API}/orders?per_page=100{query}", AUTH, goal_p50=goal)


#: the staff list of 100 and its search at n orders, over HTTP (bench/scale.py)
CASES = [
    _case("orders: list of 100, first page", "", LIST_GOAL),
    _case("orders: list of 100, a middle page", "&page={deep_page}", LIST_GOAL),
    _case("orders: list of 100 by total", "&orderby=total&order=asc", LIST_GOAL),
    _case("orders: list of 100, status processing", "&status=processing", LIST_GOAL),
    _case("orders: search by number", "&search={middle_number}", SEARCH_GOAL),
    _case("orders: search by number prefix", "&search={number_prefix}", SEARCH_GOAL),
    _case("orders: search by e-mail", "&search=guest4711%40shop", SEARCH_GOAL),
    _case("orders: search by e-mail part", "&search=guest4711", SEARCH_GOAL),
    _case("orders: search by name", "&search={last_name}", SEARCH_GOAL),
]


def context() -> dict:
    """The cases' placeholders, read from the seeded orders."""
    from urllib.parse import quote

    from store.orders.models import Order

    count = Order.objects.count()
    ordered = Order.objects.order_by("pk")
    middle = ordered.values_list("order_number", flat=True)[count // 2] or ""
    name = ordered.values_list("billing_address__last_name", flat=True)[min(4711, count - 1)]
    return {
        "deep_page": max(1, (count // 100) // 2),
        "middle_number": quote(middle),
        "number_prefix": quote(middle[:-2]),
        "last_name": quote(name or ""),
    }
