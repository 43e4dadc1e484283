"""Staff orders under load, against the framework floors:

- order_list:    GET /rest/ec/v1/orders?per_page=100 as a shop manager (application password
                 over HTTP Basic) with 100,000 orders in the database; goal p50 <= 3x F-pk.
- status_change: PATCH /rest/ec/v1/orders/{id}/status, alternating each order between
                 cancelled and processing; goal p50 <= 3x F-pkw. Leaving cancelled takes the
                 two lines' stock again in the request (checked, ledger rows, stock fields);
                 entering it records the release, which a Celery worker (started by this
                 bench, one process, on the bench's Redis) gives back, as in production. The
                 worker shares the machine's cores with the server, so its cost is in the
                 figures too.

Requests go round-robin over 400 orders, so concurrent connections rarely wait on one order's
lock, and an order comes back only after the worker has given its stock back (with fewer
orders, a reopening could come before the release and take nothing).

    .venv/bin/python -m bench.bench_orders --rounds 5 --seconds 3
"""

from bench import harness
from bench.harness import Case, run_bench

SEED_VERSION = "2"
ORDERS = 100_000
MOVING = 400


def seed() -> dict:
    import base64
    from decimal import Decimal

    from django.contrib.auth.models import Group

    from accounts import services as account_services
    from accounts.models import User
    from bench import scale_orders
    from store.catalog.services import products as product_services
    from store.common.capabilities import SHOP_MANAGER_ROLE
    from store.orders import services

    STATE_FILE.unlink(missing_ok=True)  # the statuses of the previous database's orders
    scale_orders.seed(ORDERS)
    products = [
        product_services.product_create(
            fields={
                "title": f"Bench product {n}",
                "status": "active",
                "sku": f"BENCH-{n}",
                "regular_price": Decimal(5 + n),
                "stock_quantity": 1_000_000,
            }
        ).pk
        for n in range(20)
    ]
    moving = [
        services.order_create(
            items=[
                {"product_id": products[n % 20], "quantity": 1 + n % 3},
                {"product_id": products[(n * 7 + 3) % 20], "quantity": 1},
            ],
            status="processing",
            billing_address={"email": f"moving{n}@example.com", "first_name": "Mo"},
        ).pk
        for n in range(MOVING)
    ]
    user = User.objects.create_user(email="bench@example.com", name="Bench", password=None)
    user.groups.add(Group.objects.get(name=SHOP_MANAGER_ROLE))
    _record, raw = account_services.app_password_create(user=user, name="bench")
    token = base64.b64encode(f"{user.email}:{raw}".encode()).decode()
    return {"auth": f"Basic {token}", "orders": ",".join(map(str, moving))}


# Round-robin over the orders; each visit moves an order to the other status. Each wrk run is a
# new Lua state, so the orders' statuses as last answered are kept in a file beside the
# bench's other run files: a run starts from where the previous one left every order, and no
# request is a no-op "same status again".
STATE_FILE = harness.ROOT / "var" / "bench" / "orders" / "statuses.txt"
STATUS_LUA = """
local orders, now = {{}}, {{}}
for o in string.gmatch("{orders}", "[^,]+") do table.insert(orders, o) end
local saved = io.open("@STATE@", "r")
if saved then
  for line in saved:lines() do
    local id, st = string.match(line, "^(%d+) ([%a_-]+)$")
    if id then now[id] = st end
  end
  saved:close()
end
local log = io.open("@STATE@", "a")
local n = 0

function request()
  n = n + 1
  local id = orders[(n % #orders) + 1]
  local status = (now[id] == "cancelled") and "processing" or "cancelled"
  now[id] = status
  local headers = {{}}
  headers["Content-Type"] = "application/json"
  headers["Authorization"] = "{auth}"
  return wrk.format(
    "PATCH", "/rest/ec/v1/orders/" .. id .. "/status", headers,
    '{{"status": "' .. status .. '"}}'
  )
end

function response(status, headers, body)
  if status == 200 and body then
    local id = string.match(body, '"id":%s*(%d+)')
    local st = string.match(body, '"status":%s*"([%a_-]+)"')
    if id and st then
      now[id] = st
      log:write(id, " ", st, "\\n")
      log:flush()
    end
  end
end
""".replace("@STATE@", str(STATE_FILE))

CASES = [
    Case(
        "order_list",
        method="GET",
        path="/rest/ec/v1/orders?per_page=100",
        headers={"Authorization": "{auth}"},
        floor="pk",
        goal_p50=3.0,
    ),
    Case(
        "status_change",
        method="PATCH",
        path="/rest/ec/v1/orders/0/status",
        headers={"Content-Type": "application/json", "Authorization": "{auth}"},
        floor="pkw",
        goal_p50=3.0,
        lua=STATUS_LUA,
    ),
]


if __name__ == "__main__":
    with harness.celery_worker("orders"):
        run_bench("orders", seed=seed, cases=CASES, seed_version=SEED_VERSION)
