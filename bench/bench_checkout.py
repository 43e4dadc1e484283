"""A full checkout under load, on the harness (gunicorn, PostgreSQL, Redis, wrk), against
F-pkw (a locked update): no goal is set for it, the ratio is reported.

- checkout_flow: each wrk connection runs shoppers' whole ways again and again:
  `POST /rest/ec/v1/cart/items` without a cart (the store makes one and answers its token in
  the `X-Cart-ID` header, sent back as the `ec_cart_id` cookie from then on),
  `POST /rest/ec/v1/checkout` (e-mail, Greek address, the courier of the demo zones, payment
  method `sandbox_card`: prices the cart, holds its stock in the ledger), then
  `POST /rest/ec/v1/checkout/{id}/complete` with the sandbox card (the hold turned into the
  order's stock, the order created and paid, the cart emptied, the e-mail enqueued), and then a
  new shopper. The figure is the per-request latency (the three steps mixed) over F-pkw's;
  the script also counts the paid completions, so the bench reports checkouts per second and
  how many floor requests the server answers in the time of one checkout.

Ten tracked products with plenty of stock are shared by all shoppers, so checkouts queue on the
same product rows, as in a real shop; the EU VAT rates, the demo shipping zones and a 10%
coupon are seeded. The server runs with PAYMENT_SANDBOX_ALLOWED=1, e-mails to Django's
in-memory backend, the checkout's rate limits raised (THROTTLE_RATE_*), and one Celery worker
(as in production) sends the order e-mails.

After the run the bench checks the database: every completed checkout has one paid order, no
finished checkout keeps a hold, and each product's stock is its initial stock minus what the
live orders and the open checkouts' holds take.

    .venv/bin/python -m bench.bench_checkout --rounds 5 --seconds 3
"""

from __future__ import annotations

import json
import sys

from bench import harness
from bench.harness import Case, run_bench

NAME = "checkout"
SEED_VERSION = "1"
PRODUCTS = 10
STOCK = 1_000_000_000
CARD = {"card_number": "4242 4242 4242 4242", "exp_month": 12, "exp_year": 2040, "cvc": "123"}
ADDRESS = {
    "first_name": "Ana",
    "last_name": "Bench",
    "address_1": "Ermou 12",
    "city": "Athens",
    "state": "I",
    "postcode": "10431",
    "country": "GR",
}
LIFTED = "1000000000/min"
EXTRA_ENV = {
    "PAYMENT_SANDBOX_ALLOWED": "1",
    "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
    # bench.settings raises every rate already; named here so the bench does not rely on it.
    "THROTTLE_RATE_CART_WRITE": LIFTED,
    "THROTTLE_RATE_CHECKOUT_START": LIFTED,
    "THROTTLE_RATE_CHECKOUT_COMPLETE": LIFTED,
}


def seed() -> dict:
    from decimal import Decimal

    from store.catalog.services import products as product_services
    from store.coupons import services as coupon_services
    from store.shipping import demo as shipping_demo
    from store.shipping.models import ShippingMethod
    from store.tax import services as tax_services

    shipping_demo.seed()
    tax_services.eu_vat_rates_load()
    coupon_services.coupon_create(
        fields={"code": "BENCH10", "discount_type": "percent", "amount": Decimal(10)}
    )
    products = [
        product_services.product_create(
            fields={
                "title": f"Bench product {n}",
                "status": "active",
                "sku": f"BENCH-{n}",
                "regular_price": Decimal(10 + n),
                "stock_quantity": STOCK,
                "weight": Decimal("0.5"),
            }
        ).pk
        for n in range(PRODUCTS)
    ]
    # Other products, so that the lookups use their indexes rather than a tiny table's scan.
    for n in range(PRODUCTS, 500):
        product_services.product_create(
            fields={"title": f"Other {n}", "status": "active", "regular_price": Decimal(9)}
        )
    # The courier of the demo's Attica zone (the address's region GR:I).
    method = ShippingMethod.objects.get(zone__name="Attica", type="flat_rate")
    return {"products": ",".join(map(str, products)), "method": method.pk}


def _lua_literal(value: str) -> str:
    """A Lua string literal that survives the harness's str.format of the script."""
    return harness.lua_string(value).replace("{", "{{").replace("}", "}}")


START_TEMPLATE = (
    '{"email": "@EMAIL@", "billing_address": '
    + json.dumps(ADDRESS)
    + ', "shipping_method": @METHOD@, "payment_method": "sandbox_card"}'
)
COMPLETE_BODY = json.dumps({"payment_data": CARD})

# wrk runs one Lua state per thread, shared by its connections, and tells a response hook
# nothing of the connection: so the script keeps no "current shopper" per connection. Each
# answer queues its shopper's next step (the add answers the new cart's token in X-Cart-ID;
# the start's answer echoes the shopper's e-mail, unique per shopper, which maps back to the
# token; the complete ends the shopper) and `request()` sends the oldest queued step, or
# starts a new shopper when none waits. Every connection is thus always busy, and every
# shopper's steps go in order, one answer before the next request.
FLOW_LUA = """
local products = {{}}
for p in string.gmatch("{products}", "[^,]+") do table.insert(products, p) end
local start_template = (string.gsub(@START@, "@METHOD@", "{method}"))
local complete_body = @COMPLETE@
local queue, head, tail = {{}}, 1, 0
local tokens = {{}}
local shoppers = 0
local n = math.random(0, #products - 1)

local function push(step)
  tail = tail + 1
  queue[tail] = step
end

local function count(name)
  bench_counts[name] = (bench_counts[name] or 0) + 1
end

function request()
  local headers = {{}}
  headers["Content-Type"] = "application/json"
  if head > tail then
    n = n + 1
    local body = '{{"product_id": ' .. products[(n % #products) + 1] .. ', "quantity": 1}}'
    return wrk.format("POST", "/rest/ec/v1/cart/items", headers, body)
  end
  local step = queue[head]
  queue[head] = nil
  head = head + 1
  headers["Cookie"] = "ec_cart_id=" .. step.token
  if step.id == nil then
    local body = (string.gsub(start_template, "@EMAIL@", step.email))
    return wrk.format("POST", "/rest/ec/v1/checkout", headers, body)
  end
  return wrk.format(
    "POST", "/rest/ec/v1/checkout/" .. step.id .. "/complete", headers, complete_body
  )
end

function response(status, headers, body)
  local token = headers["X-Cart-ID"] or headers["x-cart-id"]
  if token then
    if status == 200 then
      shoppers = shoppers + 1
      local email = "shopper" .. shoppers .. "@example.com"
      tokens[email] = token
      push({{token = token, email = email}})
    end
  elseif body and string.find(body, '"checkout_id"', 1, true) then
    if status == 200 and string.find(body, '"payment_status":%s*"paid"') then
      count("checkouts")
    else
      count("unpaid")
    end
  elseif (status == 201 or status == 200) and body then
    local id = string.match(body, '^{{"id":%s*(%d+)')
    local email = string.match(body, '"email":%s*"([^"]+)"')
    local cart = email and tokens[email]
    if id and cart then
      tokens[email] = nil
      push({{token = cart, id = id}})
    else
      count("lost")
    end
  end
end
""".replace("@START@", _lua_literal(START_TEMPLATE)).replace(
    "@COMPLETE@", _lua_literal(COMPLETE_BODY)
)

CASES = [
    Case(
        "checkout_flow",
        method="POST",
        path="/rest/ec/v1/cart/items",
        headers={"Content-Type": "application/json"},
        floor="pkw",
        lua=FLOW_LUA,
        expect_status=(200, 201),
    ),
]


def check_invariants(products: list[int]) -> dict:
    """From the database (every run so far): completed checkouts and their paid orders, holds
    of finished checkouts, each product's stock against what orders and open holds take."""
    from collections import Counter

    from django.db.models import Sum

    from store.catalog.models import Product
    from store.checkout.models import Checkout
    from store.orders.choices import TERMINAL
    from store.orders.models import Order, OrderItem

    completed = Checkout.objects.filter(status="completed")
    report = {
        "completed_checkouts": completed.count(),
        "completed_with_paid_order": completed.filter(order__payment_status="paid").count(),
        "orders_of_checkouts": Order.objects.filter(checkout__isnull=False).count(),
        "finished_with_hold": Checkout.objects.exclude(hold_cart_id=None)
        .exclude(status="open")
        .count(),
        "open_checkouts": Checkout.objects.filter(status="open").count(),
    }
    ordered = dict(
        OrderItem.objects.filter(product_id__in=products)
        .exclude(order__status__in=TERMINAL)
        .values_list("product_id")
        .annotate(n=Sum("quantity"))
    )
    held: Counter = Counter()
    for checkout in Checkout.objects.filter(status="open").exclude(hold_cart_id=None):
        if checkout.cart is not None:
            for item in checkout.cart.items.filter(product_id__in=products):
                held[item.product_id] += item.quantity
    wrong = []
    for product in Product.objects.filter(pk__in=products).order_by("pk"):
        expected = STOCK - ordered.get(product.pk, 0) - held[product.pk]
        if product.stock_quantity != expected:
            wrong.append(
                f"product {product.pk}: stock {product.stock_quantity}, expected {expected} "
                f"({STOCK} - ordered {ordered.get(product.pk, 0)} - held {held[product.pk]})"
            )
    report["units_ordered"] = sum(ordered.values())
    report["units_held"] = sum(held.values())
    report["stock_errors"] = wrong
    report["ok"] = (
        report["completed_checkouts"]
        == report["completed_with_paid_order"]
        == report["orders_of_checkouts"]
        and report["finished_with_hold"] == 0
        and not wrong
    )
    return report


def _per_checkout(case: dict) -> dict | None:
    """Floor requests per checkout (floor req/s over checkouts/s), median (min-max)."""
    ratios = []
    for r in case.get("rounds") or []:
        m = r["case"]
        checkouts = (m.get("counts") or {}).get("checkouts", 0)
        if checkouts and m.get("seconds"):
            ratios.append(r["floor"]["rps"] / (checkouts / m["seconds"]))
    return harness.spread(ratios) if ratios else None


def main(argv: list[str] | None = None) -> int:
    code = 0
    try:
        output = run_bench(
            NAME, seed=seed, cases=CASES, seed_version=SEED_VERSION, argv=argv, extra_env=EXTRA_ENV
        )
    except SystemExit as exc:  # a refused case: its JSON is written; check the database anyway
        code = exc.code if isinstance(exc.code, int) else 1
        path = harness.OUT_DIR / f"{NAME}.json"
        if not path.exists():
            raise
        output = json.loads(path.read_text())

    ctx = _seed_ctx()
    report = check_invariants([int(p) for p in ctx["products"].split(",")])
    notes = []
    for case in output["cases"]:
        per = _per_checkout(case)
        if per:
            notes.append(
                f"{case['case']}: the floor answers {per['median']:.0f} requests "
                f"({per['min']:.0f}-{per['max']:.0f}) in the time of one checkout"
            )
    notes.append(
        "database after the run: "
        + (
            f"{report['completed_checkouts']} completed checkouts, each with one paid order; "
            f"no finished checkout holds stock; stock = initial - ordered "
            f"({report['units_ordered']}) - held by {report['open_checkouts']} open checkouts "
            f"({report['units_held']}) for the {PRODUCTS} products"
            if report["ok"]
            else "INCONSISTENT: " + json.dumps(report, default=str)
        )
    )
    output["invariants"] = report
    output["notes"] = notes
    path = harness.OUT_DIR / f"{NAME}.json"
    path.write_text(json.dumps(output, indent=2, default=str))
    for note in notes:
        print(note)
    if not report["ok"]:
        return 3
    return code


def _seed_ctx() -> dict:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT ctx FROM bench_seed WHERE name = %s", [NAME])
        (ctx,) = cursor.fetchone()
    return ctx if isinstance(ctx, dict) else json.loads(ctx)


if __name__ == "__main__":
    with harness.celery_worker(NAME, EXTRA_ENV):
        status = main()
    sys.exit(status)
