"""Cart add under load: `POST /rest/ec/v1/cart/items` against F-pkw (a locked update).

The shop's busiest write: the throttle's one Redis round trip, then at most four SQL queries
(the cart locked and touched in one UPDATE, the line upserted in one statement, the cart's lines
read once with their products, its coupons), and the whole cart priced in the answer (EU VAT
rates, shipping zones from the cache). Goal: p50 <= 2x F-pkw.

Each request adds one unit to one of 64 guest carts (its `ec_cart_id` cookie), round-robin over
the carts and, per cart, over 10 products, so concurrent connections rarely wait on the same
cart's lock, and every cart holds its 10 lines from the start (seeded): the cart's size does not
drift during the run. The store's per-line limit is raised to 100,000 units so that repeated
runs on the seeded database never reach it.

    .venv/bin/python -m bench.bench_cart --rounds 5 --seconds 3
"""

from bench.harness import Case, run_bench

SEED_VERSION = "1"
CARTS = 64
PRODUCTS = 10


def seed() -> dict:
    from decimal import Decimal

    from store.cart.services.items import cart_item_add
    from store.catalog.services import products as product_services
    from store.settings import services as settings_services
    from store.shipping import demo as shipping_demo
    from store.tax import services as tax_services

    shipping_demo.seed()
    tax_services.eu_vat_rates_load()
    settings_services.settings_update(section="cart", values={"max_quantity": 100_000})
    products = [
        product_services.product_create(
            fields={
                "title": f"Bench product {n}",
                "status": "active",
                "sku": f"BENCH-{n}",
                "regular_price": Decimal(5 + n),
                "stock_quantity": 1_000_000_000,
                "weight": Decimal("0.2"),
            }
        ).pk
        for n in range(PRODUCTS)
    ]
    # Other products, so that the lookups use their indexes rather than a tiny table's scan.
    for n in range(PRODUCTS, 500):
        product_services.product_create(
            fields={"title": f"Other {n}", "status": "active", "regular_price": Decimal(9)}
        )
    tokens = []
    for _ in range(CARTS):
        token = None
        for product_id in products:
            token = cart_item_add(token=token, product_id=product_id, quantity=1).token
        tokens.append(token)
    return {"tokens": ",".join(tokens), "products": ",".join(map(str, products))}


# Round-robin over the carts, and per cart over the products (the request's line).
ADD_LUA = """
local tokens, products = {{}}, {{}}
for t in string.gmatch("{tokens}", "[^,]+") do table.insert(tokens, t) end
for p in string.gmatch("{products}", "[^,]+") do table.insert(products, p) end
local n = math.random(0, #tokens * #products)

function request()
  n = n + 1
  local cart = tokens[(n % #tokens) + 1]
  local product = products[(math.floor(n / #tokens) % #products) + 1]
  local body = '{{"product_id": ' .. product .. ', "quantity": 1}}'
  local headers = {{}}
  headers["Content-Type"] = "application/json"
  headers["Cookie"] = "ec_cart_id=" .. cart
  return wrk.format("POST", nil, headers, body)
end
"""

CASES = [
    Case(
        "cart_add",
        method="POST",
        path="/rest/ec/v1/cart/items",
        headers={"Content-Type": "application/json"},
        floor="pkw",
        goal_p50=2.0,
        lua=ADD_LUA,
    ),
]

if __name__ == "__main__":
    run_bench("cart", seed=seed, cases=CASES, seed_version=SEED_VERSION)
