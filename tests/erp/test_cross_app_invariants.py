"""Invariants across the store and the ERP, after any sequence of their operations.

A hypothesis state machine places orders and pays, refunds, cancels and reopens them (the store's
services), invoices them and cancels the invoices by credit note (erp.invoicing), receives
purchase orders (erp.purchasing) and adjusts and transfers stock (store.inventory's ERP
operations), in any order, with the ERP on. Each step goes through the services the HTTP views
call, its after-commit work (accounting's postings, refunds' credit notes, the stock's release)
run at its end. A step the services refuse (ServiceError) must change nothing the invariants
watch. After every step:

- **The books balance**: the trial balance's debits equal its credits, assets = liabilities +
  equity + current earnings, and no business event failed to post.
- **Receivables are what orders owe.** Accounting posts each issued invoice Dr receivable
  (gross), each credit note (a cancellation's or a refund's) Cr receivable, each completed
  payment Cr receivable and each refund Dr receivable, all referenced `order:<id>`, so per
  order the open item is

      gross of its issued invoices (cancelled since or not) - gross of their credit notes
      - amount_paid + amount_refunded

  positive when the customer owes, negative when the store does (paid before invoicing, or an
  invoice cancelled with its payment kept); the aged receivables list exactly the orders where
  it is not zero, and their total is the receivable account's balance. A refund gives the sale
  back only through its credit note: one that merely returns an overpayment, or an order not
  invoiced, leaves the customer owing the refund.
- **Payments listed signed add up**: per order, the completed payments' `signed_amount` (a
  refund negative) sum to amount_paid - amount_refunded, and refunds never exceed payments.
- **Net revenue is net invoiced**: the sales account's credit balance is the net of the issued
  invoices less the net of the credit notes (VAT apart: the VAT-payable account holds their
  VAT likewise); no invoice is credited beyond its gross, and an invoice is cancelled exactly
  when its credit notes give back all of it.
- **Stock is its ledger**: every level equals the sum of its movements and never goes below
  zero, each product's stock fields the sum of its levels in active warehouses, and a product's
  units in all warehouses are its initial stock + received + adjusted - what live orders hold
  (transfers move units, cancelled and refunded orders give theirs back, reopened ones take
  them again).
- **Document numbers are gapless**: per series, the issued documents' numbers are 1 to
  next_number - 1, each once, printed as prefix + number.

Each example runs in a savepoint rolled back at its end, so every one starts from the same
catalogue, series and warehouses, and numbering starts again at 1.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_UP, Decimal

import pytest
from django.db import transaction
from django.db.models import F, Sum
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    initialize,
    invariant,
    multiple,
    rule,
    run_state_machine_as_test,
)

from common.errors import ServiceError
from erp.accounting import selectors as books
from erp.accounting import services as accounting
from erp.accounting.choices import AccountRole, PostingStatus
from erp.accounting.models import AutoPosting, JournalLine
from erp.invoicing import selectors as invoices
from erp.invoicing import services as invoicing
from erp.invoicing.models import Invoice, InvoiceSeries
from erp.purchasing import services as purchasing
from erp.purchasing.models import GoodsReceivedNote, Supplier
from store.catalog.models import Product
from store.common.money import money
from store.inventory import services as inventory
from store.inventory.models import StockLevel, StockMovement, Warehouse
from store.inventory.services import StockLine
from store.orders import services as order_services
from store.orders.choices import TERMINAL, PaymentRecordStatus
from store.orders.models import Order, OrderItem, Payment
from store.payments import services as payment_services
from tests.erp.invoicing.helpers import BILLING, configure
from tests.erp.purchasing.conftest import make_supplier, sent_order
from tests.fixtures.properties import examples
from tests.store.inventory.test_erp_operations import check_ledger, depot
from tests.store.orders.factories import line, make_order, on_commit, stocked

pytestmark = pytest.mark.django_db

FAR = date(2100, 1, 1)
ZERO = Decimal("0.00")
CENT = Decimal("0.01")

# (title, price, VAT rate of the order lines, whether the price includes it, initial stock):
# small stocks, so orders and reopenings are refused for want of stock now and then; three
# rates, so refunds' credit notes split over VAT categories. The prices with tax are taxed as
# the checkout does (tax = amount x R / (100 + R), the net the rest), and the invoice's VAT,
# recomputed from the net, is a cent off the order's now and then (3 mugs: a cent less; a
# tea: a cent more), so an order paid in full may leave a cent owed or overpaid.
CATALOGUE = (
    ("Lamp", "10.00", Decimal(24), False, 4),
    ("Mug", "7.49", Decimal(13), True, 3),
    ("Tea", "12.99", Decimal(13), True, 4),
    ("Book", "50.00", Decimal(6), False, 5),
)

PRODUCT = st.integers(0, len(CATALOGUE) - 1)
LINES = st.lists(st.tuples(PRODUCT, st.integers(1, 3)), min_size=1, max_size=3)
# How an order is placed: the method and the status the checkout gives it.
PLACING = st.sampled_from((("cod", "processing"), ("bacs", "on_hold")))
# (kind, product, units: signed for an adjustment, warehouse: 0 the default, 1 the depot (a
# transfer's source), unit cost of a receipt)
STOCK_OPERATION = st.tuples(
    st.sampled_from(("receive", "adjust", "transfer")),
    PRODUCT,
    st.integers(-4, 6).filter(bool),
    st.integers(0, 1),
    st.sampled_from(("2.5000", "3.3333", "12.00")),
)


@dataclass(frozen=True)
class World:
    """What every example starts from (made once per test, in its transaction)."""

    products: list[Product]
    initial: dict[int, int]
    warehouses: list[Warehouse]
    supplier: Supplier


def _world() -> World:
    configure(zero_vat_exemption=24)
    accounting.chart_ensure()
    products = [stocked(title, stock=stock, price=price) for title, price, *_, stock in CATALOGUE]
    return World(
        products=products,
        initial={p.pk: stock for p, (*_, stock) in zip(products, CATALOGUE, strict=True)},
        warehouses=[inventory.default_warehouse(), depot("depot")],
        supplier=make_supplier(name="Acme"),
    )


def _order_line(product: Product, index: int, quantity: int) -> dict:
    """An order line as the checkout makes it: its tax rounded once, half up."""
    _title, price, rate, with_tax, _stock = CATALOGUE[index]
    amount = Decimal(price) * quantity
    if not with_tax:
        return line(product, quantity, tax=money(amount * rate / 100))
    tax = money(amount * rate / (100 + rate))
    net = amount - tax
    return line(product, quantity, price=money(net / quantity), subtotal=net, tax=tax)


def _watched() -> dict:
    """Everything the invariants read: a refusal must leave it as it was."""
    return {
        "journal": list(
            JournalLine.objects.order_by("id").values_list("id", "account_id", "debit", "credit")
        ),
        "postings": list(AutoPosting.objects.order_by("id").values_list("id", "status")),
        "documents": list(
            Invoice.objects.exclude(number=None)
            .order_by("id")
            .values_list("id", "status", "number", "gross_total")
        ),
        "series": list(InvoiceSeries.objects.order_by("id").values_list("id", "next_number")),
        "payments": list(
            Payment.objects.order_by("id").values_list("id", "kind", "status", "amount")
        ),
        "orders": list(
            Order.objects.order_by("id").values_list(
                "id", "status", "amount_paid", "amount_refunded", "payment_status"
            )
        ),
        "items": list(OrderItem.objects.order_by("id").values_list("id", "quantity", "restocked")),
        "stock": list(StockLevel.objects.order_by("id").values_list("id", "quantity")),
        "movements": StockMovement.objects.count(),
        "receipts": GoodsReceivedNote.objects.count(),
    }


def _order_of(document: Invoice) -> int | None:
    return document.order_id or (document.corrects.order_id if document.corrects_id else None)


class StoreAndBooks(RuleBasedStateMachine):
    orders = Bundle("orders")
    paid = Bundle("paid")  # orders paid in full once: the refunds' candidates

    def __init__(self, world: World):
        super().__init__()
        self.world = world
        self.received: Counter[int] = Counter()
        self.adjusted: Counter[int] = Counter()
        self._example = transaction.atomic()
        self._example.__enter__()

    def teardown(self):
        """Undo the example (whatever failed in it): the next one starts from the world."""
        transaction.set_rollback(True)
        self._example.__exit__(None, None, None)

    def _attempt(self, call) -> bool:
        """Run a step with its after-commit work; a refusal must have changed nothing."""
        before = _watched()
        try:
            with on_commit():
                call()
        except ServiceError as refusal:
            refused = refusal.code
        else:
            return True
        assert _watched() == before, f"refused ({refused}) but changed"
        return False

    def _product(self, index: int) -> Product:
        return self.world.products[index]

    # --- The store ----------------------------------------------------------------------------

    def _place(self, lines, shipping, placing):
        method, status = placing
        items = [_order_line(self._product(i), i, quantity) for i, quantity in lines]
        extra = (
            {"shipping_total": "5.00", "shipping_tax": "1.20", "shipping_method_title": "Courier"}
            if shipping
            else {}
        )
        placed = []
        self._attempt(
            lambda: placed.append(
                make_order(
                    *items, status=status, payment_method=method, billing_address=BILLING, **extra
                ).pk
            )
        )
        return multiple(*placed)

    @initialize(target=orders, lines=LINES, shipping=st.booleans(), placing=PLACING)
    def first_order(self, lines, shipping, placing):
        return self._place(lines, shipping, placing)

    @rule(target=orders, lines=LINES, shipping=st.booleans(), placing=PLACING)
    def place_order(self, lines, shipping, placing):
        return self._place(lines, shipping, placing)

    @rule(target=paid, order=orders)
    def pay_in_full(self, order):
        row = Order.objects.get(pk=order)
        due = row.total - row.amount_paid + row.amount_refunded
        if due <= 0:
            return multiple()
        paying = self._attempt(
            lambda: order_services.payment_create(
                order_id=order, fields={"amount": due, "method": row.payment_method}
            )
        )
        return order if paying else multiple()

    @rule(order=paid, percent=st.integers(1, 99))
    def refund_part(self, order, percent):
        row = Order.objects.get(pk=order)
        left = row.amount_paid - row.amount_refunded
        amount = max((left * percent / 100).quantize(CENT, rounding=ROUND_HALF_UP), CENT)
        self._attempt(lambda: payment_services.refund_create(order_id=order, amount=amount))

    @rule(order=paid, restock=st.booleans())
    def refund_all(self, order, restock):
        self._attempt(lambda: payment_services.refund_create(order_id=order, restock=restock))

    @rule(order=orders)
    def cancel(self, order):
        self._attempt(lambda: order_services.order_status_set(order_id=order, status="cancelled"))

    @rule(order=orders)
    def reopen(self, order):
        """A cancelled or refunded order back to processing (a live one moves there, or stays)."""
        self._attempt(lambda: order_services.order_status_set(order_id=order, status="processing"))

    # --- The ERP ------------------------------------------------------------------------------

    @rule(order=orders)
    def invoice(self, order):
        def issue():
            made, _new = invoicing.invoice_from_order(order_id=order)
            invoicing.invoice_issue(invoice_id=made.pk)

        self._attempt(issue)

    @rule(order=orders)
    def cancel_invoice(self, order):
        made = invoices.invoice_of_order(order)
        if made is not None:
            self._attempt(lambda: invoicing.invoice_cancel(invoice_id=made.pk, reason="Returned"))

    @rule(operation=STOCK_OPERATION)
    def move_stock(self, operation):
        """Receive a purchase order, adjust a level, or transfer between the two warehouses
        (one rule, so that the orders' steps are most of a history)."""
        kind, product, quantity, where, cost = operation
        item = self._product(product)
        warehouse, other = self.world.warehouses[where], self.world.warehouses[1 - where]
        if kind == "receive":

            def receipt():
                ordered = sent_order(self.world.supplier, (item, abs(quantity), cost))
                purchasing.purchase_order_receive(order_id=ordered.pk, warehouse_id=warehouse.pk)

            if self._attempt(receipt):
                self.received[item.pk] += abs(quantity)
        elif kind == "adjust":
            adjusted = self._attempt(
                lambda: inventory.stock_adjust(
                    product_id=item.pk,
                    warehouse_id=warehouse.pk,
                    quantity=quantity,
                    reason="correction",
                )
            )
            if adjusted:
                self.adjusted[item.pk] += quantity
        else:
            self._attempt(
                lambda: inventory.stock_transfer(
                    from_warehouse_id=warehouse.pk,
                    to_warehouse_id=other.pk,
                    lines=[StockLine(item.pk, None, abs(quantity))],
                )
            )

    # --- Invariants ---------------------------------------------------------------------------

    @invariant()
    def books_balance(self):
        """Every event posted; debits = credits; assets = liabilities + equity + earnings."""
        failed = AutoPosting.objects.filter(status=PostingStatus.FAILED)
        assert not failed.exists(), list(failed.values_list("source_type", "kind", "error"))
        report = books.trial_balance(books.Period(date_from=None, date_to=FAR))
        assert report["balanced"], report["totals"]
        sheet = books.balance_sheet(FAR)
        assert sheet["balanced"], {k: v for k, v in sheet.items() if k.startswith("total")}

    @invariant()
    def receivables_are_what_orders_owe(self):
        """Per order: invoices - credit notes - paid + refunded (the module's docstring)."""
        owed: defaultdict[str, Decimal] = defaultdict(lambda: ZERO)
        for document in Invoice.objects.exclude(number=None).select_related("corrects"):
            sign = -1 if document.corrects_id else 1
            owed[f"order:{_order_of(document)}"] += sign * document.gross_total
        for order in Order.objects.all():
            owed[f"order:{order.pk}"] += order.amount_refunded - order.amount_paid
        expected = {reference: amount for reference, amount in owed.items() if amount}
        aged = books.aged(AccountRole.RECEIVABLE, FAR)
        listed = {
            item["reference"]: item["amount"]
            for partner in aged["partners"]
            for item in partner["items"]
        }
        assert listed == expected
        balance = books.account_balances().get(
            accounting.role_account(AccountRole.RECEIVABLE).pk, ZERO
        )
        assert balance == aged["totals"]["total"] == sum(expected.values(), ZERO)

    @invariant()
    def payments_add_up(self):
        """The signed payments of an order are what the shop kept of it."""
        completed = Payment.objects.filter(status=PaymentRecordStatus.COMPLETED)
        signed = defaultdict(lambda: ZERO)
        for payment in completed:
            signed[payment.order_id] += payment.signed_amount
        for order in Order.objects.all():
            assert signed[order.pk] == order.amount_paid - order.amount_refunded, order.pk
            assert order.amount_refunded <= order.amount_paid, order.pk

    @invariant()
    def revenue_is_net_invoiced(self):
        """Sales = net invoiced - net credited (VAT payable likewise); credit within gross."""
        issued = Invoice.objects.exclude(number=None)
        sums = {
            credit: issued.filter(corrects__isnull=not credit).aggregate(
                net=Sum("net_total"), vat=Sum("vat_total")
            )
            for credit in (False, True)
        }
        # SQLite sums decimals in floating point: back to cents, as the reports do
        net = money((sums[False]["net"] or ZERO) - (sums[True]["net"] or ZERO))
        vat = money((sums[False]["vat"] or ZERO) - (sums[True]["vat"] or ZERO))
        balances = books.account_balances()
        for role, expected in ((AccountRole.SALES, net), (AccountRole.VAT_PAYABLE, vat)):
            credit_balance = -balances.get(accounting.role_account(role).pk, ZERO)
            assert credit_balance == expected, role
        for document in issued.filter(corrects=None):
            credited = issued.filter(corrects=document).aggregate(t=Sum("gross_total"))["t"]
            credited = money(credited or ZERO)
            assert credited <= document.gross_total, document.full_number
            assert (document.status == "cancelled") == (credited >= document.gross_total), (
                document.full_number,
                document.status,
                credited,
            )

    @invariant()
    def stock_is_its_ledger(self):
        """Levels = their movements; units = initial + received + adjusted - held."""
        products = self.world.products
        check_ledger([(product, None) for product in products], self.world.warehouses)
        assert not Order.objects.filter(stock_release_pending=True).exists()
        held = dict(
            OrderItem.objects.exclude(order__status__in=TERMINAL)
            .values("product")
            .annotate(units=Sum(F("quantity") - F("restocked")))
            .values_list("product", "units")
        )
        units = dict(
            StockLevel.objects.values("product")
            .annotate(units=Sum("quantity"))
            .values_list("product", "units")
        )
        for product in products:
            expected = (
                self.world.initial[product.pk]
                + self.received[product.pk]
                + self.adjusted[product.pk]
                - held.get(product.pk, 0)
            )
            assert units.get(product.pk, 0) == expected, product.title

    @invariant()
    def numbers_are_gapless(self):
        """Each series numbered 1 .. next_number - 1, once each; drafts have no number."""
        for series in InvoiceSeries.objects.all():
            documents = Invoice.objects.filter(series=series).exclude(number=None)
            numbers = sorted(documents.values_list("number", flat=True))
            assert numbers == list(range(1, series.next_number)), series.code
            printed = set(documents.values_list("full_number", flat=True))
            assert printed == {f"{series.prefix}{n}" for n in numbers}, series.code
        assert not Invoice.objects.filter(number=None).exclude(status="draft").exists()


@pytest.mark.slow(reason="15 generated histories of 12 store and ERP steps, each on the database")
def test_the_store_and_the_books_agree_after_any_sequence_of_operations(erp_on):
    world = _world()
    run_state_machine_as_test(
        lambda: StoreAndBooks(world),
        settings=settings(max_examples=examples(15), stateful_step_count=12),
    )
