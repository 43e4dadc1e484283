"""The ERP's demo data for `manage.py seed_demo`: the demo store's Business licence (a licence
of this service, issued to the reseller under its Business Bundle subscription), the ERP turned
on under it, its seeded roles, an accountant, the portal, the inventory backfill and the import
of the store's data. Idempotent: what exists is kept."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from accounts.demo import DEMO_PASSWORD
from accounts.models import AccountType, User
from erp.core import gate, selectors, services
from erp.core.models import ErpJob, ErpSettings, JobKind
from licensing.models import LicenseSource, Product, Subscription, SubscriptionStatus, Tier
from licensing.services.licenses import license_create

VENDOR = "reseller@example.com"  # sells the store its licence (holds a Business Bundle)
ACCOUNTANT = ("accountant@example.com", "Anna Accountant")
ERP_PRODUCT = {
    "slug": "emporion-erp",
    "name": "Emporion ERP",
    "description": "Invoicing, inventory, purchasing and more for the store (Business tier).",
    "starter_yearly_price": Decimal("0.00"),
    "starter_max_domains": 1,
    "business_yearly_price": Decimal("490.00"),
    "business_max_domains": 1,
}


def _licence_key(vendor: User) -> str:
    """The store's Business licence: the one the ERP runs under, or a new one."""
    row = ErpSettings.objects.filter(pk=1).first()
    key = gate.configured_key(row)
    if key and gate.license_verdict(key).open:
        return key
    values = {k: v for k, v in ERP_PRODUCT.items() if k != "slug"}
    product, _created = Product.objects.update_or_create(slug=ERP_PRODUCT["slug"], defaults=values)
    now = timezone.now()
    if not Subscription.objects.filter(
        owner=vendor, customer=None, status=SubscriptionStatus.ACTIVE, current_period_end__gt=now
    ).exists():  # the Business Bundle a Business licence needs (as licensing's demo makes it)
        Subscription.objects.create(owner=vendor, current_period_end=now + timedelta(days=365))
    licence = license_create(
        owner=vendor,
        product=product,
        tier=Tier.BUSINESS,
        source=LicenseSource.INDIVIDUAL,
        enforce_limit=False,
    )
    return licence.license_key


def _accountant() -> User:
    email, name = ACCOUNTANT
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User(email=email, name=name, type=AccountType.DEVELOPER, email_verified=True)
        user.set_password(DEMO_PASSWORD)
        user.save()
    return user


def _run(kind: str, start) -> ErpJob:
    """The job of `kind` done once (run here, to its end)."""
    job = ErpJob.objects.filter(kind=kind).order_by("-id").first()
    if job is None:
        job = start()
    return services.job_run_inline(job_id=job.pk)


def seed() -> list[str]:
    admin = User.objects.filter(email="admin@example.com").first()
    vendor = User.objects.get(email=VENDOR)
    key = _licence_key(vendor)
    services.erp_activate(license_key=key, user=admin)

    accountant = _accountant()
    if not selectors.erp_user_list().filter(pk=accountant.pk).exists():
        services.erp_user_assign(actor=None, user_id=accountant.pk, roles=["erp_accountant"])
    portal = selectors.portal_settings()
    if portal.pk is None:
        services.portal_settings_update(
            fields={
                "enabled": True,
                "customer_documents": ["invoices", "credit_notes", "orders"],
                "suppliers_enabled": True,
                "supplier_documents": ["purchase_orders", "goods_received"],
                "welcome_text": "Welcome to the Emporion demo store's portal: your invoices and "
                "orders, in one place.",
            },
            user=admin,
        )

    backfill = _run(JobKind.INVENTORY_BACKFILL, lambda: services.inventory_backfill_start())
    imported = _run(JobKind.MIGRATE_DATA, lambda: services.migrate_data_start())
    checklist = selectors.onboarding_checklist()
    counts = {phase: n.get("imported", 0) for phase, n in imported.counts.items()}
    return [
        f"  The store's licence: Business tier, key {gate.mask(key)} (product emporion-erp, "
        f"issued to {VENDOR}); the ERP is on: GET /rest/ec/v1/erp/status",
        "  ERP roles: Accountant, Warehouse, Purchaser, Sales, HR officer (GET /erp/roles)",
        f"  {ACCOUNTANT[0]:<24} {DEMO_PASSWORD:<20} ERP role Accountant (GET /erp/users)",
        f"  Inventory backfill #{backfill.pk}: {backfill.state}, "
        f"{backfill.counts.get('levels', {}).get('costed', 0)} levels costed",
        f"  Store data imported (#{imported.pk}, {imported.state}): "
        + ", ".join(f"{n} {phase}" for phase, n in counts.items()),
        f"  Onboarding: {checklist['done']} of {checklist['total']} steps done "
        "(GET /erp/onboarding/checklist)",
    ]
