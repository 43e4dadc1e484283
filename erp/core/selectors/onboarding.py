"""GET /erp/onboarding/checklist: what is left to set up, read from the state itself."""

from __future__ import annotations

from django.apps import apps
from django.contrib.auth import get_user_model
from django.db.models import Q

from erp.core import gate
from erp.core.capabilities import ERP_CODENAMES
from erp.core.models import ErpJob, ErpPortalSettings, ErpSettings, JobKind, JobState
from store.common.capabilities import APP_LABEL
from store.inventory.models import StockLevel, Warehouse

User = get_user_model()


def _invoice_series_exist() -> bool | None:
    """Whether the invoicing app holds an invoice series; None while it is not installed (the
    step then says so). Found through the app registry: the kernel imports no ERP app."""
    if not apps.is_installed("erp.invoicing"):
        return None
    config = apps.get_app_config("erp_invoicing")
    series = [m for m in config.get_models() if m.__name__.lower().endswith("series")]
    return any(model.objects.exists() for model in series)


def _users_assigned() -> bool:
    """Someone who is not an administrator holds an ERP capability (an ERP role, or their
    own)."""
    return (
        User.objects.filter(is_active=True, is_superuser=False)
        .filter(
            Q(
                user_permissions__content_type__app_label=APP_LABEL,
                user_permissions__codename__in=ERP_CODENAMES,
            )
            | Q(
                groups__permissions__content_type__app_label=APP_LABEL,
                groups__permissions__codename__in=ERP_CODENAMES,
            )
        )
        .exists()
    )


def onboarding_checklist() -> dict:
    row = ErpSettings.objects.filter(pk=1).first()
    licence = gate.license_verdict(gate.configured_key(row))
    series = _invoice_series_exist()
    portal = ErpPortalSettings.objects.filter(pk=1, enabled=True).exists()
    steps = [
        (
            "license_active",
            "The store holds an active Business-tier licence",
            licence.open,
            licence.message if not licence.open else "",
        ),
        (
            "erp_active",
            "The ERP is turned on",
            gate.is_on(row),
            "POST /erp/activate",
        ),
        (
            "warehouses_configured",
            "A warehouse is set up with its address",
            Warehouse.objects.filter(is_active=True).exclude(country="").exists(),
            "Give a warehouse its address and country (/warehouses, or the store's inventory).",
        ),
        (
            "users_assigned",
            "Staff hold ERP roles",
            _users_assigned(),
            "POST /erp/users with an ERP role (GET /erp/roles).",
        ),
        (
            "inventory_costed",
            "Every stock level has a unit cost",
            not StockLevel.objects.filter(unit_cost__isnull=True).exists(),
            "POST /erp/inventory/backfill/start",
        ),
        (
            "data_migrated",
            "The store's customers, orders and stock are imported",
            ErpJob.objects.filter(kind=JobKind.MIGRATE_DATA, state=JobState.COMPLETED).exists(),
            "POST /erp/migrate-data/start",
        ),
        (
            "invoice_series",
            "An invoice series exists",
            bool(series),
            "The invoicing app is not installed." if series is None else "POST /invoice-series",
        ),
        (
            "portal_configured",
            "The customer portal is enabled",
            portal,
            "PATCH /erp/portal-settings",
        ),
    ]
    items = [
        {"key": key, "title": title, "done": done, "hint": "" if done else hint}
        for key, title, done, hint in steps
    ]
    done = sum(item["done"] for item in items)
    return {
        "steps": items,
        "done": done,
        "total": len(items),
        "percent": done * 100 // len(items),
        "complete": done == len(items),
    }
