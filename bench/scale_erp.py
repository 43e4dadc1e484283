"""The ERP's reports at two sizes (the scale test's flat cases, bench/scale.py).

`seed(size)` fills a database that already holds `size` store orders (bench/scale_orders.py's
seed, run first by the scale test) with what the ERP's reports read, bulk-created:

- the ERP turned on under a Business-tier licence of this service's licensing app (the gate of
  every ERP route);
- accounting: the default chart, calendar fiscal years over the last two years, and `size`
  journal lines (size / 2 posted entries of two lines: sales, purchases, costs of goods sold,
  expenses, receipts), spread over those two years and numbered in their year's series;
- CRM: one contact per store customer (RFM itself reads the customers' paid orders);
- inventory: min(size, 50,000) catalog products (bench/scale_catalog.py's seed: 40 % variable
  with three variants), a stock level in the default warehouse for each simple product and
  each variant (a second warehouse holds every tenth item), with a unit cost, a reorder point
  on one in seven, an initial-stock movement each and sales movements over the last 30 days.

`rebuild()` then runs whichever rollup rebuild commands exist (the reports may keep rollups
that a bulk insert does not maintain): it runs on every scale run, not only after a seed, so a
rollup table added since the database was seeded is filled too.

CASES: the reports over HTTP, as the ERP's staff ask for them (an administrator's application
password), each with its summary row of bench/results.md and the goal (big / small) <= 2x;
the stock levels page <= 1.5x (it should cost the same at any size).
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from decimal import Decimal

from bench.harness.http_loop import HttpCase

SEED_VERSION = "2"
MAX_PRODUCTS = 50_000
REBUILD_COMMANDS = (
    "rebuild_report_rollups",
    "rebuild_account_balances",
    "rebuild_crm_rollups",
    "rebuild_stock_rollups",
)
API = "/rest/ec/v1"
AUTH = {"Authorization": "{auth}"}

CASES = [
    HttpCase(
        "ERP: trial balance (fiscal year to date)",
        f"{API}/reports/trial-balance",
        AUTH,
        goal_flat=2.0,
        summary="trial balance",
    ),
    HttpCase(
        "ERP: trial balance, two years",
        f"{API}/reports/trial-balance?date_from={{two_years_ago}}",
        AUTH,
        goal_flat=2.0,
        summary="trial balance",
    ),
    HttpCase(
        "ERP: profit-loss (fiscal year to date)",
        f"{API}/reports/profit-loss",
        AUTH,
        goal_flat=2.0,
        summary="profit-loss",
    ),
    HttpCase(
        "ERP: balance sheet",
        f"{API}/reports/balance-sheet",
        AUTH,
        goal_flat=2.0,
        summary="balance sheet",
    ),
    HttpCase(
        "ERP: crm/rfm, page of 100",
        f"{API}/crm/rfm?per_page=100",
        AUTH,
        goal_flat=2.0,
        summary="rfm",
    ),
    HttpCase(
        "ERP: crm/rfm, by recency",
        f"{API}/crm/rfm?per_page=100&ordering=recency",
        AUTH,
        goal_flat=2.0,
        summary="rfm",
    ),
    HttpCase("ERP: stock/stats", f"{API}/stock/stats", AUTH, goal_flat=2.0, summary="stock stats"),
    HttpCase(
        "ERP: stock/levels, page of 100",
        f"{API}/stock/levels?per_page=100",
        AUTH,
        goal_flat=1.5,
        summary="stock levels",
    ),
    HttpCase(
        "ERP: stock/levels, page 5 of 100",
        f"{API}/stock/levels?per_page=100&page=5",
        AUTH,
        goal_flat=1.5,
        summary="stock levels",
    ),
]

# (debit account, credit account, low, high): the entries' kinds, in turn
TEMPLATES = (
    ("1100", "4100", 20, 400),  # a sale paid
    ("1200", "4100", 50, 900),  # a sale on account
    ("5100", "1300", 10, 250),  # its cost of goods
    ("5200", "2100", 100, 2000),  # a purchase on account
    ("5300", "1100", 15, 600),  # an expense paid
    ("1100", "1200", 50, 900),  # a customer pays
    ("2100", "1100", 100, 2000),  # a supplier is paid
)


def seed(size: int) -> dict:
    """Everything above; answers nothing for the cases (their context comes from context())."""
    rng = random.Random(23)  # noqa: S311 - seed data, not secrets
    _erp_on()
    _journal(size, rng)
    _contacts()
    _stock(min(size, MAX_PRODUCTS), rng)
    return {}


def _erp_on() -> None:
    from datetime import UTC, datetime

    from accounts.models import AccountType, User
    from erp.core.services import erp_activate
    from licensing.keys import generate_license_key
    from licensing.models import License, LicenseSource, LicenseStatus, Product, Tier

    owner = User.objects.create_user(
        "scale-erp-licence@example.com",
        "Scale-Pass-2026",
        name="Scale ERP",
        type=AccountType.RESELLER,
        email_verified=True,
    )
    licence = License.objects.create(
        owner=owner,
        product=Product.objects.create(slug="scale-erp", name="Scale ERP"),
        license_key=generate_license_key(),
        tier=Tier.BUSINESS,
        status=LicenseStatus.ACTIVE,
        source=LicenseSource.INDIVIDUAL,
        expires_at=datetime(2099, 1, 1, tzinfo=UTC),
    )
    erp_activate(license_key=licence.license_key)


def _journal(lines: int, rng: random.Random) -> None:
    from django.db import transaction
    from django.utils import timezone

    from erp.accounting.choices import EntryKind, EntryStatus
    from erp.accounting.models import Account, FiscalYear, JournalEntry, JournalLine
    from erp.accounting.services.chart import chart_ensure

    chart_ensure()
    accounts = dict(Account.objects.values_list("code", "pk"))
    today = timezone.localdate()
    first = today - timedelta(days=730)
    years = {
        year: FiscalYear.objects.create(
            name=f"FY{year}", start_date=date(year, 1, 1), end_date=date(year, 12, 31)
        )
        for year in range(first.year, today.year + 1)
    }
    entries = max(1, lines // 2)
    numbers = dict.fromkeys(years, 0)
    now = timezone.now()
    batch = 5000
    with transaction.atomic():
        for start in range(0, entries, batch):
            made, pending_lines = [], []
            for i in range(start, min(entries, start + batch)):
                day = first + timedelta(days=730 * i // entries)
                year = years[day.year]
                numbers[day.year] += 1
                made.append(
                    JournalEntry(
                        fiscal_year=year,
                        number=numbers[day.year],
                        full_number=f"{year.name}/{numbers[day.year]:05d}",
                        date=day,
                        status=EntryStatus.POSTED,
                        kind=EntryKind.MANUAL,
                        reference=f"SCALE-{i}",
                        memo="bench/scale_erp",
                        posted_at=now,
                    )
                )
            made = JournalEntry.objects.bulk_create(made)
            for k, entry in enumerate(made):
                debit, credit, low, high = TEMPLATES[(start + k) % len(TEMPLATES)]
                amount = Decimal(rng.randint(low * 100, high * 100)) / 100
                pending_lines += [
                    JournalLine(entry=entry, account_id=accounts[debit], debit=amount, position=0),
                    JournalLine(
                        entry=entry, account_id=accounts[credit], credit=amount, position=1
                    ),
                ]
            JournalLine.objects.bulk_create(pending_lines, batch_size=batch)
        for year_number, year in years.items():
            year.next_number = numbers[year_number] + 1
            year.save(update_fields=["next_number"])


def _contacts() -> None:
    from erp.crm.models import Contact
    from store.customers.models import Customer

    Contact.objects.bulk_create(
        (
            Contact(
                name=f"{c.first_name} {c.last_name}".strip() or c.email,
                email=c.email,
                customer_id=c.pk,
                country="GR",
            )
            for c in Customer.objects.only("pk", "email", "first_name", "last_name").iterator()
        ),
        batch_size=5000,
    )


def _stock(products: int, rng: random.Random) -> None:
    from django.utils import timezone

    from bench import scale_catalog
    from store.catalog.models import Product, Variant
    from store.inventory.choices import MovementReason
    from store.inventory.models import StockLevel, StockMovement, Warehouse

    scale_catalog.seed(products)
    default = Warehouse.objects.get(is_default=True)
    second = Warehouse.objects.create(name="Scale annex", code="scale-annex", priority=20)
    items: list[tuple[int, int | None, str]] = [
        (pk, None, sku)
        for pk, sku in Product.objects.filter(type="simple").values_list("pk", "sku").iterator()
    ]
    items += [
        (product_id, pk, sku)
        for pk, product_id, sku in Variant.objects.values_list("pk", "product_id", "sku").iterator()
    ]
    now = timezone.now()
    levels: list[StockLevel] = []
    plans: list[tuple[int, int, str]] = []
    for n, (product_id, variant_id, sku) in enumerate(items):
        for warehouse in (default, second) if n % 10 == 0 else (default,):
            initial = rng.randint(1, 200)
            sold = rng.randint(1, 3) if len(plans) % 3 == 0 and initial > 3 else 0
            plans.append((initial, sold, sku or ""))
            levels.append(
                StockLevel(
                    warehouse=warehouse,
                    product_id=product_id,
                    variant_id=variant_id,
                    quantity=initial - sold,
                    unit_cost=Decimal(rng.randint(100, 20000)) / 100,
                    reorder_point=5 if n % 7 == 0 else None,
                )
            )
    levels = StockLevel.objects.bulk_create(levels, batch_size=5000)
    movements = []
    for n, (level, (initial, sold, sku)) in enumerate(zip(levels, plans, strict=True)):
        common = {
            "level": level,
            "warehouse_id": level.warehouse_id,
            "product_id": level.product_id,
            "variant_id": level.variant_id,
            "sku": sku,
        }
        movements.append(
            StockMovement(
                **common,
                quantity=initial,
                quantity_after=initial,
                reason=MovementReason.INITIAL_STOCK,
                unit_cost=level.unit_cost,
                idempotency_key=f"scale:initial:{level.pk}",
                created_at=now - timedelta(days=60, minutes=n % 1440),
            )
        )
        if sold:
            movements.append(
                StockMovement(
                    **common,
                    quantity=-sold,
                    quantity_after=initial - sold,
                    reason=MovementReason.ORDER_PLACED,
                    reference_type="order",
                    reference_id=str(n),
                    idempotency_key=f"scale:sale:{level.pk}",
                    created_at=now - timedelta(days=n % 30, minutes=n % 1440),
                )
            )
    StockMovement.objects.bulk_create(movements, batch_size=5000)


def rebuild() -> list[str]:
    """Runs the rollup rebuild commands that exist; answers their names."""
    from django.core.management import call_command, get_commands

    present = [name for name in REBUILD_COMMANDS if name in get_commands()]
    for name in present:
        call_command(name, verbosity=0)
    return present


def context() -> dict:
    """The cases' placeholders that depend on the day of the run."""
    from django.utils import timezone

    return {"two_years_ago": (timezone.localdate() - timedelta(days=730)).isoformat()}
