"""Scale test of the catalog: n products, every filter and order of the product list table.

`seed(n)` bulk-creates n products (60 % simple, 40 % variable with three variants) spread over
20 brands, 40 categories in a two-level tree and three attributes of eight terms, with prices,
sales, ratings, stock statuses and creation dates spread out. CASES are, over HTTP
(bench/scale.py), the product list (page of 100, the cache bypassed) for each filter, order
and search of the spec's table, and GET /search.
"""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

from bench.bench_store import COLD_HEADER
from bench.harness.http_loop import HttpCase

BATCH = 5000
WORDS = [
    "hoodie",
    "shirt",
    "jacket",
    "boots",
    "sneaker",
    "scarf",
    "beanie",
    "glove",
    "sock",
    "dress",
    "skirt",
    "trousers",
    "jeans",
    "blouse",
    "sweater",
    "cardigan",
    "parka",
    "vest",
    "belt",
    "wallet",
    "backpack",
    "watch",
]
ADJECTIVES = [
    "organic",
    "merino",
    "classic",
    "slim",
    "heavy",
    "light",
    "vintage",
    "waterproof",
    "cosy",
    "urban",
    "alpine",
    "coastal",
    "linen",
    "cotton",
    "woollen",
    "recycled",
]
COLOURS = ["red", "blue", "green", "black", "white", "grey", "navy", "olive"]
SIZES = ["xs", "s", "m", "l", "xl", "xxl", "3xl", "4xl"]
MATERIALS = ["cotton", "wool", "linen", "silk", "denim", "leather", "nylon", "hemp"]


def seed(n: int) -> None:
    from django.db import transaction
    from django.utils import timezone

    from store.catalog.models import (
        Attribute,
        AttributeTerm,
        Brand,
        Category,
        Product,
        Variant,
    )

    rng = random.Random(11)  # noqa: S311 (sample data)
    # Descriptions draw on a wide vocabulary (a word is in ~1-2 % of them), with the
    # garment words now and then, as in a real shop.
    syllables = ["ka", "lo", "mi", "ter", "van", "su", "dra", "pel", "or", "tin", "bu", "ze"]
    vocabulary = [
        "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(3000)
    ] + WORDS
    now = timezone.now()
    with transaction.atomic():
        brands = Brand.objects.bulk_create(
            Brand(name=f"Brand {i}", slug=f"scale-brand-{i}") for i in range(20)
        )
        roots = Category.objects.bulk_create(
            Category(name=f"Department {i}", slug=f"scale-dept-{i}") for i in range(8)
        )
        children = Category.objects.bulk_create(
            Category(name=f"Aisle {i}", slug=f"scale-aisle-{i}", parent=roots[i % 8])
            for i in range(32)
        )
        attributes = Attribute.objects.bulk_create(
            Attribute(name=name, slug=f"scale-{name}") for name in ("color", "size", "material")
        )
        terms = {
            attribute.pk: AttributeTerm.objects.bulk_create(
                AttributeTerm(attribute=attribute, name=value, slug=value) for value in values
            )
            for attribute, values in zip(attributes, (COLOURS, SIZES, MATERIALS), strict=True)
        }
    ProductCategory = Product.categories.through
    ProductTerm = Product.attribute_terms.through
    done = 0
    while done < n:
        count = min(BATCH, n - done)
        products = []
        for i in range(done, done + count):
            variable = rng.random() < 0.4
            regular = Decimal(rng.randint(500, 50000)) / 100
            sale = (
                (regular * Decimal("0.8")).quantize(Decimal("0.01"))
                if rng.random() < 0.15
                else None
            )
            price = sale if sale is not None else regular
            top = price + (Decimal(rng.randint(0, 5000)) / 100 if variable else 0)
            title = f"{rng.choice(ADJECTIVES).title()} {rng.choice(WORDS)} {i}"
            stock = rng.random()
            products.append(
                Product(
                    title=title,
                    slug=f"scale-{i}",
                    type="variable" if variable else "simple",
                    status="active" if rng.random() < 0.95 else "draft",
                    sku=f"SC-{i:07d}",
                    brand=brands[rng.randrange(20)],
                    short_description=f"A {rng.choice(ADJECTIVES)} {rng.choice(WORDS)}.",
                    description=" ".join(rng.choice(vocabulary) for _ in range(30)),
                    regular_price=regular,
                    sale_price=sale,
                    price=price,
                    min_price=price,
                    max_price=top,
                    on_sale=sale is not None,
                    stock_quantity=rng.randint(0, 200),
                    stock_status="out_of_stock"
                    if stock < 0.07
                    else ("on_backorder" if stock < 0.1 else "in_stock"),
                    average_rating=Decimal(rng.randint(0, 500)) / 100,
                    review_count=rng.randint(0, 40),
                    total_sales=rng.randint(0, 1000),
                    created_at=now - timedelta(minutes=rng.randint(0, 60 * 24 * 700)),
                )
            )
        with transaction.atomic():
            products = Product.objects.bulk_create(products, batch_size=BATCH)
            links, term_links, variants = [], [], []
            for product in products:
                for category in {rng.choice(children), rng.choice(children)}:
                    links.append(ProductCategory(product_id=product.pk, category_id=category.pk))
                for attribute in attributes:
                    term = rng.choice(terms[attribute.pk])
                    term_links.append(ProductTerm(product_id=product.pk, attributeterm_id=term.pk))
                if product.type == "variable":
                    for k, price in enumerate(
                        (product.min_price, product.max_price, product.min_price)
                    ):
                        variants.append(
                            Variant(
                                product_id=product.pk,
                                sku=f"{product.sku}-{k}",
                                title=f"{product.title} {k}",
                                regular_price=price,
                                price=price,
                                on_sale=product.on_sale,
                                stock_quantity=product.stock_quantity,
                                stock_status=product.stock_status,
                                sort_order=k,
                            )
                        )
            ProductCategory.objects.bulk_create(links, batch_size=BATCH)
            ProductTerm.objects.bulk_create(term_links, batch_size=BATCH)
            Variant.objects.bulk_create(variants, batch_size=BATCH)
        done += count
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")


API = "/rest/ec/v1"
COLD = {COLD_HEADER: "1"}
# A page of 100 rendered cold (its queries, 100 summaries, every cache write) costs 4.4-5.3x
# F-pk one request at a time on 2,000 products (`list: default`); a filter served by an index
# may add a quarter to that at 50,000 products, no more: beyond, the catalog's size shows
# (bench/README.md, "The scale test").
GOAL_P50 = 6.0

#: (label, query string) of the product list, every filter, order and search of its table
LIST_QUERIES = [
    ("list: default (id desc)", ""),
    ("list: min_price=100", "min_price=100"),
    ("list: max_price=20", "max_price=20"),
    ("list: min_price=50 max_price=60", "min_price=50&max_price=60"),
    ("list: category (slug, leaf)", "category={aisle}"),
    ("list: category_id (root + children)", "category_id={dept}"),
    ("list: brand_id", "brand_id={brand}"),
    ("list: brand_ids (3)", "brand_ids={brands}"),
    ("list: attr_color=red", "attr_scale-color=red"),
    ("list: attr_color=red,blue & attr_size=m", "attr_scale-color=red,blue&attr_scale-size=m"),
    (
        "list: attr_color=red or attr_size=m",
        "attr_scale-color=red&attr_scale-size=m&filter_logic=or",
    ),
    ("list: on_sale", "on_sale=true"),
    ("list: min_rating=4.5", "min_rating=4.5"),
    ("list: stock_status=on_backorder", "stock_status=on_backorder"),
    ("list: type=variable", "type=variable"),
    ("list: orderby=price asc", "orderby=price&order=ASC"),
    ("list: orderby=price desc", "orderby=price&order=DESC"),
    ("list: orderby=date desc", "orderby=date"),
    ("list: orderby=title asc", "orderby=title&order=ASC"),
    ("list: orderby=rating desc", "orderby=rating"),
    ("list: orderby=popularity desc", "orderby=popularity"),
    ("list: orderby=modified desc", "orderby=modified"),
    ("list: orderby=slug asc", "orderby=slug&order=ASC"),
    ("list: orderby=sku asc", "orderby=sku&order=ASC"),
    ("list: orderby=stock_quantity desc", "orderby=stock_quantity"),
    ("list: page 50 (per_page 100)", "page=50"),
    ("list: middle page (id desc)", "page={middle}"),
    ("list: last page (id desc)", "page={last}"),
    ("list: last page orderby=price", "page={last}&orderby=price"),
    (
        "list: category+brand+price+on_sale, orderby price",
        "category_id={dept}&brand_ids={brands}&min_price=10&max_price=400&on_sale=true"
        "&orderby=price&order=ASC",
    ),
    ("list: q=hoodie", "q=hoodie"),
    ("list: q=hood (partial word)", "q=hood"),
    ("list: q=merino jacket", "q=merino%20jacket"),
    ("list: q=SC-0012345 (SKU)", "q=SC-0012345"),
    ("list: q=zzzz (no match)", "q=zzzz"),
]

#: the product list (every request cold: bench_store's X-Bench-Cold-Cache, so each runs its
#: queries and cache writes instead of answering a cached page) and GET /search
CASES = [
    HttpCase(label, f"{API}/products?per_page=100&{query}".rstrip("&"), COLD, goal_p50=GOAL_P50)
    for label, query in LIST_QUERIES
] + [
    HttpCase(f"/search q={term}", f"{API}/search?q={term}", COLD, goal_p50=GOAL_P50)
    for term in ("hoodie", "hood", "SC-0012345")
]


def context() -> dict:
    """The cases' placeholders, read from the seeded catalog."""
    from store.catalog.models import Brand, Category, Product

    shown = Product.objects.filter(status="active").exclude(stock_status="out_of_stock").count()
    last = max(1, -(-shown // 100))
    dept = Category.objects.filter(slug="scale-dept-3").values_list("pk", flat=True).first()
    brands = list(
        Brand.objects.filter(slug__startswith="scale-brand-")
        .order_by("pk")
        .values_list("pk", flat=True)[:3]
    )
    return {
        "last": last,
        "middle": max(1, last // 2),
        "dept": dept,
        "aisle": "scale-aisle-5",
        "brand": brands[0],
        "brands": ",".join(map(str, brands)),
    }
