"""Store catalog under load, against F-pk.

Cases (all public GETs, Redis cache on, as in production):

- product_by_id / product_by_slug: `GET /products/{id}` and `/products/slug/{slug}` of a
  variable product (3 variants, categories, brand, attributes, images), served from its cached
  body after the first read. Goal p50 <= 1.5x F-pk.
- product_cold: `GET /products/{id}` of the same product with the cache empty of every key the
  request reads (see "Cold requests" below): the catalog's version tokens, the product's
  token, its body; the database read and the cache writes of the miss. Goal p50 <= 2x F-pk.
- list_100_cold: `GET /products?per_page=100` with the cache just as empty: the store
  settings, the version tokens, the page, the 100 products' tokens; the database reads (the
  settings, the COUNT, the page's entries) and every cache write of the miss. Goal p50 <= 4x
  F-pk.
- list_100_cached: the same page served from the cache. No goal; shown for reference.

Cold requests: a request carrying the header X-Bench-Cold-Cache is served under a cache
namespace of its own, new for each request, so every key it reads is missing (the path runs as
on an empty cache: each miss, each fallback read, each write). The bench server runs with this
module as its gunicorn configuration (GUNICORN_CMD_ARGS, below): its hooks give the cache
backend's key function the namespace (pre_request) and, after the answers, unlink what those
requests made (post_request, in batches; the rest when the worker stops, and the harness
empties the bench's keys before each run).
Requests without the header (the floor, the cached cases) use the shared keys as usual. An
earlier version missed the cache with a new `max_price` per request, which emptied only the
page's entry: the 100 summaries still came from the cache, which made a cold list look half
as dear as it is.

The seed is bench/scale_catalog.seed with 2,000 products (the scale test's catalog), plus a
featured image on each product and, on the product read, a gallery and variant images.

    .venv/bin/python -m bench.bench_store --rounds 5 --seconds 3
    .venv/bin/python -m bench.bench_store --rounds 5 --seconds 3 --only product_cold
"""

from __future__ import annotations

import os
import uuid

from bench.harness import Case, run_bench

SEED_VERSION = "2"
API = "/rest/ec/v1"
COLD_HEADER = "X-Bench-Cold-Cache"
COLD_UNLINK_BATCH = 2000  # keys made by cold requests, unlinked together


def _image(n: int, stem: str):
    from store.media.models import SIZE_NAMES, MediaImage

    return MediaImage(
        file=f"{stem}/{n:06d}.jpg",
        original_name=f"{n}.jpg",
        content_type="image/jpeg",
        size=120_000,
        width=1200,
        height=900,
        alt_text=f"Product photo {n}",
        renditions={
            size: {
                "width": 150,
                "height": 150,
                "files": {fmt: f"{stem}/{n:06d}-{size}.{fmt}" for fmt in ("base", "webp", "avif")},
            }
            for size in SIZE_NAMES
        },
    )


def seed() -> dict:
    from bench import scale_catalog
    from store.catalog.models import Product, ProductImage, Variant
    from store.media.models import MediaImage

    scale_catalog.seed(2000)
    stem = "store/2026/01/bench"
    products = list(Product.objects.order_by("id"))
    images = MediaImage.objects.bulk_create(_image(n, stem) for n in range(len(products)))
    for product, image in zip(products, images, strict=True):
        product.featured_image_id = image.pk
    Product.objects.bulk_update(products, ["featured_image"], batch_size=1000)
    product = (
        Product.objects.filter(type="variable", status="active", stock_status="in_stock")
        .order_by("id")
        .first()
    )
    extra = MediaImage.objects.bulk_create(_image(100_000 + n, stem) for n in range(6))
    ProductImage.objects.bulk_create(
        ProductImage(product=product, image=image, sort_order=i)
        for i, image in enumerate(extra[:3])
    )
    variants = list(Variant.objects.filter(product=product).order_by("id"))
    for variant, image in zip(variants, extra[3:], strict=False):
        variant.image_id = image.pk
    Variant.objects.bulk_update(variants, ["image"])
    return {"product_id": product.pk, "slug": product.slug}


CASES = [
    Case("product_by_id", path=f"{API}/products/{{product_id}}", floor="pk", goal_p50=1.5),
    Case("product_by_slug", path=f"{API}/products/slug/{{slug}}", floor="pk", goal_p50=1.5),
    Case(
        "product_cold",
        path=f"{API}/products/{{product_id}}",
        headers={COLD_HEADER: "1"},
        floor="pk",
        goal_p50=2.0,
    ),
    Case(
        "list_100_cold",
        path=f"{API}/products?per_page=100",
        headers={COLD_HEADER: "1"},
        floor="pk",
        goal_p50=4.0,
    ),
    Case("list_100_cached", path=f"{API}/products?per_page=100", floor="pk"),
]


# --- The bench server's gunicorn hooks (cold requests) -------------------------------------------
# gunicorn reads the names below as settings when this module is its configuration; no other
# module-level name of this file is a gunicorn setting.


class _Cold:
    namespace: str | None = None  # the namespace of the request being served (sync worker)
    served = 0  # cold requests this worker served
    run = uuid.uuid4().hex[:6]  # this server's (a later run's workers may reuse its pids)
    made: set[str] = set()  # keys made under cold namespaces, not unlinked yet


def post_worker_init(worker) -> None:
    """Wrap the cache backend's key making (this worker process only)."""
    from django.core.cache import caches

    backend = type(caches["default"])
    make_key = backend.make_key

    def cold_make_key(self, key, version=None):
        made = make_key(self, key, version)
        if _Cold.namespace is None:
            return made
        # Under the bench's prefix (the harness empties it before a run), short: Django
        # checks every character of a key.
        made = f"{self.key_prefix}:{_Cold.namespace}{made[len(self.key_prefix) :]}"
        _Cold.made.add(made)
        return made

    backend.make_key = cold_make_key


def pre_request(worker, req) -> None:
    cold = any(name == COLD_HEADER.upper() for name, _value in req.headers)
    _Cold.served += cold
    _Cold.namespace = f"~{os.getpid():x}.{_Cold.served:x}.{_Cold.run}" if cold else None


def post_request(worker, req, environ, resp) -> None:
    _Cold.namespace = None
    if len(_Cold.made) >= COLD_UNLINK_BATCH:
        _unlink_cold()


def worker_exit(server, worker) -> None:
    _Cold.namespace = None
    _unlink_cold()


def _unlink_cold() -> None:
    from django.core.cache import caches

    keys, _Cold.made = list(_Cold.made), set()
    if keys:
        caches["default"]._cache.get_client(None, write=True).unlink(*keys)


if __name__ == "__main__":
    run_bench(
        "store",
        seed=seed,
        cases=CASES,
        seed_version=SEED_VERSION,
        extra_env={"GUNICORN_CMD_ARGS": "--config python:bench.bench_store"},
    )
