from __future__ import annotations

from rest_framework import serializers

from common.api.fields import IdField, IntegerField, StrictIntegerField
from erp.core import selectors
from erp.core.api.base import ListQuery, page_serializer
from erp.core.capabilities import CAPABILITY_OF, DESCRIPTIONS, DOMAIN_OF, DOMAINS, ERP_CODENAMES
from erp.core.models import JobKind, JobState, PortalDocument, SupplierDocument
from erp.core.services.jobs import QUANTITY_MAX
from erp.core.services.migrate import PHASE_NAMES
from store.common.capabilities import has_capability
from store.common.formats import iso
from store.common.params import (
    PerPageField,
    StrictBooleanField,
    StrictCharField,
    StrictDecimalField,
)


class ErpActivateSerializer(serializers.Serializer):
    license_key = StrictCharField(
        max_length=64,
        required=False,
        allow_blank=True,
        help_text="The store's Business-tier licence key (default: the one configured).",
    )


class ErpLicenceStateSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="Masked: its last group only.")
    tier = serializers.CharField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)
    status = serializers.CharField(
        help_text="ok, no_license, license_not_found, revoked, expired or not_business."
    )


class ErpStatusSerializer(serializers.Serializer):
    active = serializers.BooleanField(help_text="The ERP is turned on.")
    licensed = serializers.BooleanField(help_text="The store's licence can run the ERP.")
    available = serializers.BooleanField(help_text="Both: the ERP routes answer.")
    reason = serializers.CharField(
        help_text="ok, not_active, no_license, license_not_found, revoked, expired, not_business."
    )
    message = serializers.CharField()
    license = ErpLicenceStateSerializer()
    activated_at = serializers.DateTimeField(allow_null=True)
    activated_by = serializers.EmailField(allow_null=True)
    deactivated_at = serializers.DateTimeField(allow_null=True)


# --- ERP roles and users ------------------------------------------------------------------------


def _roles_field(help_text: str, **kwargs):
    return serializers.ListField(
        child=StrictCharField(max_length=64), max_length=50, help_text=help_text, **kwargs
    )


def _capabilities_field(help_text: str, **kwargs):
    return serializers.ListField(
        child=StrictCharField(max_length=64),
        max_length=len(DOMAINS),
        help_text=help_text + " ERP capabilities only (GET /erp/roles lists them).",
        **kwargs,
    )


class ErpUserListQuerySerializer(ListQuery):
    search = StrictCharField(required=False, max_length=200, help_text="E-mail or name.")
    role = StrictCharField(required=False, max_length=64, help_text="An ERP role's slug.")
    capability = serializers.ChoiceField(
        choices=sorted(ERP_CODENAMES), required=False, help_text="Accounts that hold it."
    )
    administrators = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Also list manage_options holders and superusers (they hold every ERP "
        "capability).",
    )


class ErpUserAssignSerializer(serializers.Serializer):
    user_id = IdField(required=False, help_text="The account (or send `email`).")
    email = serializers.EmailField(required=False, help_text="The account's e-mail address.")
    roles = _roles_field("ERP role slugs to add to those held.")

    def validate(self, attrs):
        if ("user_id" in attrs) == ("email" in attrs):
            raise serializers.ValidationError({"user_id": ["Send user_id or email (one)."]})
        return attrs


class ErpUserUpdateSerializer(serializers.Serializer):
    roles = _roles_field("The account's ERP roles (replaces them; [] for none).")


class ErpRoleRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class ErpUserSerializer(serializers.Serializer):
    id = IdField()
    email = serializers.EmailField()
    name = serializers.CharField()
    is_active = serializers.BooleanField()
    erp_roles = ErpRoleRefSerializer(many=True, help_text="The ERP roles the account holds.")
    erp_capabilities = serializers.ListField(
        child=serializers.CharField(),
        help_text="The ERP capabilities it holds (its own, any role's, all for administrators).",
    )
    administrator = serializers.BooleanField(help_text="Holds manage_options (or superuser).")


ErpUserPageSerializer = page_serializer("ErpUserPageSerializer", "users", ErpUserSerializer)


class ErpRoleListQuerySerializer(ListQuery):
    per_page = PerPageField(cap=100, default=50, help_text="Default 50, at most 100.")
    search = StrictCharField(required=False, max_length=200)
    built_in = serializers.BooleanField(required=False, allow_null=True, default=None)


class ErpRoleCreateSerializer(serializers.Serializer):
    name = StrictCharField(
        max_length=150, help_text="Unique among all roles, without regard to case."
    )
    slug = StrictCharField(
        max_length=64,
        required=False,
        help_text="Lower-case letters, digits, _ and -; made from the name when absent. Set once.",
    )
    description = StrictCharField(required=False, allow_blank=True, max_length=2000)
    capabilities = _capabilities_field("The role's capabilities, at least one.")


class ErpRoleUpdateSerializer(serializers.Serializer):
    name = StrictCharField(max_length=150, required=False)
    description = StrictCharField(required=False, allow_blank=True, max_length=2000)
    capabilities = _capabilities_field("The role's capabilities (replaces them).", required=False)

    def validate(self, attrs):
        if isinstance(self.initial_data, dict) and "slug" in self.initial_data:
            raise serializers.ValidationError({"slug": ["A role's slug is set once."]})
        return attrs


class ErpRoleSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    description = serializers.CharField()
    built_in = serializers.BooleanField(help_text="A seeded role: read-only.")
    capabilities = serializers.ListField(child=serializers.CharField())
    domains = serializers.ListField(child=serializers.CharField())
    user_count = IntegerField(help_text="Accounts holding the role.")


class ErpDomainSerializer(serializers.Serializer):
    domain = serializers.CharField(
        help_text="invoicing, inventory, purchasing, accounting, crm, hr."
    )
    capability = serializers.CharField()
    description = serializers.CharField()
    grantable = serializers.BooleanField(help_text="Whether the caller holds it.")


ErpRolePageSerializer = page_serializer(
    "ErpRolePageSerializer",
    "roles",
    ErpRoleSerializer,
    domains=ErpDomainSerializer(many=True, help_text="The ERP's capabilities, one per domain."),
)


def role_data(group) -> dict:
    profile = group.store_role
    capabilities = selectors.role_erp_capabilities(group)
    return {
        "slug": profile.slug,
        "name": group.name,
        "description": profile.description,
        "built_in": profile.built_in,
        "capabilities": capabilities,
        "domains": [DOMAIN_OF[c] for c in capabilities],
        "user_count": getattr(group, "user_count", 0) or 0,
    }


def user_data(user) -> dict:
    return {
        "id": user.pk,
        "email": user.email,
        "name": user.name,
        "is_active": user.is_active,
        "erp_roles": [
            {"slug": g.store_role.slug, "name": g.name} for g in selectors.user_erp_roles(user)
        ],
        "erp_capabilities": selectors.user_erp_capabilities(user),
        "administrator": selectors.user_is_administrator(user),
    }


def domain_list(user) -> list[dict]:
    return [
        {
            "domain": domain,
            "capability": CAPABILITY_OF[domain],
            "description": DESCRIPTIONS.get(CAPABILITY_OF[domain], ""),
            "grantable": has_capability(user, CAPABILITY_OF[domain]),
        }
        for domain in DOMAINS
    ]


# --- Jobs ----------------------------------------------------------------------------------------


class ErpMigrateStartSerializer(serializers.Serializer):
    include = serializers.ListField(
        child=serializers.ChoiceField(choices=list(PHASE_NAMES)),
        required=False,
        min_length=1,
        max_length=len(PHASE_NAMES),
        help_text="What to import: some of customers, orders, stock (default: all).",
    )


class ErpBackfillStartSerializer(serializers.Serializer):
    cost_ratio = StrictDecimalField(
        max_digits=5,
        decimal_places=4,
        required=False,
        help_text="A unit's cost as a share of its list price (above 0, at most 1; default "
        "0.6), for levels without a unit cost.",
    )
    reorder_point = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=QUANTITY_MAX,
        help_text="For levels without one whose product has no low-stock threshold (default "
        "5; null leaves them).",
    )
    reorder_quantity = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=QUANTITY_MAX,
        help_text="For levels without one (default: left empty).",
    )


class ErpJobErrorSerializer(serializers.Serializer):
    phase = serializers.CharField()
    id = IntegerField(allow_null=True, help_text="The row (customer, order, level) it was about.")
    message = serializers.CharField()


class ErpJobSerializer(serializers.Serializer):
    id = IdField()
    kind = serializers.ChoiceField(choices=JobKind.choices)
    state = serializers.ChoiceField(choices=JobState.choices)
    phase = serializers.CharField(help_text="The phase under way (or the last one).")
    progress = IntegerField(help_text="Percent done, 100 only once completed.")
    total = IntegerField(help_text="Rows to do, counted when it started.")
    processed = IntegerField()
    last_id = IntegerField(help_text="The last row done in the phase: where it goes on from.")
    batches = IntegerField()
    counts = serializers.DictField(
        child=serializers.DictField(child=IntegerField()),
        help_text="Per phase: imported, skipped, errors ... (backfill: costed, reorder_points, "
        "no_price, unchanged).",
    )
    errors = ErpJobErrorSerializer(many=True, help_text="The first 100 errors.")
    error_count = IntegerField()
    params = serializers.DictField(help_text="The options it was started with.")
    started_by = serializers.EmailField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    updated_at = serializers.DateTimeField()


def job_data(job) -> dict:
    return {
        "id": job.pk,
        "kind": job.kind,
        "state": job.state,
        "phase": job.phase,
        "progress": job.progress,
        "total": job.total,
        "processed": job.processed,
        "last_id": job.last_id,
        "batches": job.batch,
        "counts": job.counts,
        "errors": job.errors,
        "error_count": job.error_count,
        "params": job.params,
        "started_by": job.started_by.email if job.started_by else None,
        "created_at": iso(job.created_at),
        "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at),
        "updated_at": iso(job.updated_at),
    }


# --- Onboarding and the portal ------------------------------------------------------------------


class ErpChecklistStepSerializer(serializers.Serializer):
    key = serializers.CharField()
    title = serializers.CharField()
    done = serializers.BooleanField()
    hint = serializers.CharField(help_text="What to do next (empty once done).")


class ErpChecklistSerializer(serializers.Serializer):
    steps = ErpChecklistStepSerializer(many=True)
    done = IntegerField()
    total = IntegerField()
    percent = IntegerField()
    complete = serializers.BooleanField()


class ErpPortalSettingsSerializer(serializers.Serializer):
    enabled = serializers.BooleanField(help_text="Customers see their documents.")
    customer_documents = serializers.ListField(
        child=serializers.ChoiceField(choices=PortalDocument.choices),
        help_text="What customers see.",
    )
    suppliers_enabled = serializers.BooleanField(help_text="Suppliers see their documents.")
    supplier_documents = serializers.ListField(
        child=serializers.ChoiceField(choices=SupplierDocument.choices),
        help_text="What suppliers see.",
    )
    welcome_text = serializers.CharField(allow_blank=True)
    brand_colour = serializers.CharField(help_text="#rrggbb.")
    updated_at = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.EmailField(allow_null=True)


class ErpPortalSettingsUpdateSerializer(serializers.Serializer):
    enabled = StrictBooleanField(required=False)
    customer_documents = serializers.ListField(
        child=serializers.ChoiceField(choices=PortalDocument.choices),
        required=False,
        max_length=len(PortalDocument.values),
    )
    suppliers_enabled = StrictBooleanField(required=False)
    supplier_documents = serializers.ListField(
        child=serializers.ChoiceField(choices=SupplierDocument.choices),
        required=False,
        max_length=len(SupplierDocument.values),
    )
    welcome_text = StrictCharField(
        required=False, allow_blank=True, max_length=2000, trim_whitespace=False
    )
    brand_colour = StrictCharField(required=False, max_length=7, help_text="#RRGGBB.")


def portal_data(row) -> dict:
    return {
        "enabled": row.enabled,
        "customer_documents": list(row.customer_documents),
        "suppliers_enabled": row.suppliers_enabled,
        "supplier_documents": list(row.supplier_documents),
        "welcome_text": row.welcome_text,
        "brand_colour": row.brand_colour,
        "updated_at": iso(row.updated_at) if row.pk and row.updated_at else None,
        "updated_by": row.updated_by.email if row.updated_by_id else None,
    }
