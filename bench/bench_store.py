"""Store catalog under load, against F-pk (issue 11, point 3).

Cases (all public GETs, Redis cache on, as in production):

- product_by_id / product_by_slug: `GET /products/{id}` and `/products/slug/{slug}` of a
  variable product (3 variants, categories, brand, attributes). Served from its cached body
  (two or three Redis round trips, no query) after the first read. Goal p50 <= 1.5x F-pk.
- list_100_uncached: `GET /products?per_page=100` with a `max_price` bound far above every
  price that changes on every request (a wrk Lua counter per thread). The bound is part of
  the list cache key, so each request misses the cache and runs the whole uncached path: the
  COUNT, the page's rows, their categories, the 100 summaries, and the cache writes of the
  miss. It also adds one always-true range test to the SQL (max_price/min_price overlap,
  indexed columns), which is the only thing it changes. Goal p50 <= 4x F-pk.
- list_100_cached: the same page without the bound, served from the cache (page entry and
  the 100 product bodies). No goal in the issue; shown for reference.

The seed is bench/scale_catalog.seed with 2,000 products (the scale test's catalog).

    BENCH_DB_PREFIX=emporion_cat_bench BENCH_REDIS_URL=redis://127.0.0.1:6379/3 \\
        .venv/bin/python -m bench.bench_store --rounds 5 --seconds 3 --port 8130
"""

from bench.harness import Case, run_bench

SEED_VERSION = "1"
API = "/rest/ec/v1"


def seed() -> dict:
    from bench import scale_catalog
    from store.catalog.models import Product

    scale_catalog.seed(2000)
    product = (
        Product.objects.filter(type="variable", status="active", stock_status="in_stock")
        .order_by("id")
        .first()
    )
    return {"product_id": product.pk, "slug": product.slug}


# Every request a new max_price (cents counting up, per wrk thread): always a cache miss.
MISS_LUA = """
local thread_counter = 0
function setup(thread)
  thread_counter = thread_counter + 1
  thread:set("thread_id", thread_counter)
end
local n = 0
function request()
  n = n + 1
  local cents = (thread_id or 0) * 100000000 + n
  local bound = string.format("%d.%02d", 1000000 + math.floor(cents / 100), cents % 100)
  return wrk.format(nil, "{api}/products?per_page=100&max_price=" .. bound)
end
"""

CASES = [
    Case("product_by_id", path=f"{API}/products/{{product_id}}", floor="pk", goal_p50=1.5),
    Case("product_by_slug", path=f"{API}/products/slug/{{slug}}", floor="pk", goal_p50=1.5),
    Case(
        "list_100_uncached",
        path=f"{API}/products?per_page=100&max_price=1000000.00",
        floor="pk",
        goal_p50=4.0,
        lua=MISS_LUA.replace("{api}", API).replace("{", "{{").replace("}", "}}"),
    ),
    Case("list_100_cached", path=f"{API}/products?per_page=100", floor="pk"),
]

if __name__ == "__main__":
    run_bench("store", seed=seed, cases=CASES, seed_version=SEED_VERSION)
