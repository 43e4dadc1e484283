"""POST /erp/migrate-data/start: the store's customers, orders and stock imported into the ERP's
registers (ErpImportedCustomer, ErpImportedOrder, ErpOpeningStock), which the ERP's apps read
(invoicing's from-order, accounting's opening balances and inventory value, CRM's contacts).

Each row is written by an upsert keyed on its store row, so a batch done twice, or a second
import, ends with the same registers (refreshed to the store's rows as they are then)."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Count, Max, Min
from django.utils import timezone

from erp.core.models import ErpImportedCustomer, ErpImportedOrder, ErpOpeningStock
from erp.core.services.batches import BatchResult, Phase
from store.customers.models import Customer
from store.inventory.models import StockLevel
from store.orders.models import Order

PHASE_NAMES = ("customers", "orders", "stock")
CENTS = Decimal("0.01")


def _upsert(model, rows: list, unique: str) -> None:
    if rows:
        fields = [
            f.name for f in model._meta.concrete_fields if not f.primary_key and f.name != unique
        ]
        model.objects.bulk_create(
            rows, update_conflicts=True, unique_fields=[unique], update_fields=fields
        )


def _customer_rows(params: dict):
    return Customer.objects.only(
        "id", "email", "first_name", "last_name", "company", "phone", "anonymised_at", "created_at"
    )


def _import_customers(job, customers: list, params: dict) -> BatchResult:
    result = BatchResult()
    now = timezone.now()
    stats = {
        row["customer_id"]: row
        for row in Order.objects.filter(customer_id__in=[c.pk for c in customers])
        .values("customer_id")
        .annotate(n=Count("id"), first=Min("created_at"), last=Max("created_at"))
        .order_by()
    }
    rows = []
    for customer in customers:
        if customer.anonymised_at is not None:
            result.add("skipped")  # erased at the customer's request: nothing to import
            continue
        seen = stats.get(customer.pk, {})
        name = f"{customer.first_name} {customer.last_name}".strip()
        rows.append(
            ErpImportedCustomer(
                customer_id=customer.pk,
                email=customer.email,
                name=name[:201],
                company=customer.company,
                phone=customer.phone,
                order_count=seen.get("n", 0),
                first_order_at=seen.get("first"),
                last_order_at=seen.get("last"),
                customer_since=customer.created_at,
                job=job,
                imported_at=now,
            )
        )
    _upsert(ErpImportedCustomer, rows, "customer")
    result.add("imported", len(rows))
    return result


def _order_rows(params: dict):
    return Order.objects.all()


def _billing_email(order) -> str:
    address = order.billing_address if isinstance(order.billing_address, dict) else {}
    email = address.get("email")
    return email[:254] if isinstance(email, str) else ""


def _import_orders(job, orders: list, params: dict) -> BatchResult:
    result = BatchResult()
    now = timezone.now()
    rows = []
    for order in orders:
        if not order.order_number:
            result.error(order.pk, "The order has no number.")
            continue
        rows.append(
            ErpImportedOrder(
                order_id=order.pk,
                order_number=order.order_number,
                customer_id=order.customer_id,
                email=_billing_email(order),
                status=order.status,
                payment_status=order.payment_status,
                currency=order.currency,
                subtotal=order.subtotal,
                discount_total=order.discount_total,
                shipping_total=order.shipping_total,
                tax_total=order.tax_total,
                total=order.total,
                amount_paid=order.amount_paid,
                amount_refunded=order.amount_refunded,
                item_count=order.item_count,
                ordered_at=order.created_at,
                paid_at=order.paid_at,
                job=job,
                imported_at=now,
            )
        )
    _upsert(ErpImportedOrder, rows, "order")
    result.add("imported", len(rows))
    return result


def _stock_rows(params: dict):
    return StockLevel.objects.select_related("product", "variant")


def _import_stock(job, levels: list, params: dict) -> BatchResult:
    result = BatchResult()
    now = timezone.now()
    rows = []
    for level in levels:
        sku = (level.variant.sku if level.variant else "") or level.product.sku
        value = None
        if level.unit_cost is not None:
            value = (level.unit_cost * level.quantity).quantize(CENTS)
        else:
            result.add("without_cost")
        rows.append(
            ErpOpeningStock(
                level_id=level.pk,
                warehouse_id=level.warehouse_id,
                product_id=level.product_id,
                variant_id=level.variant_id,
                sku=sku,
                quantity=level.quantity,
                unit_cost=level.unit_cost,
                value=value,
                job=job,
                imported_at=now,
            )
        )
    _upsert(ErpOpeningStock, rows, "level")
    result.add("imported", len(rows))
    return result


PHASES = (
    Phase("customers", _customer_rows, _import_customers),
    Phase("orders", _order_rows, _import_orders),
    Phase("stock", _stock_rows, _import_stock),
)
