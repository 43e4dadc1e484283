"""The ERP's configuration routes (administrators: manage_options): /erp/status, /erp/activate,
/erp/deactivate, /erp/users, /erp/roles, /erp/migrate-data/*, /erp/inventory/backfill/*,
/erp/onboarding/checklist, /erp/portal-settings.

These routes are not behind the licence gate: they are how a store sets the ERP up."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from erp.core import selectors, services
from erp.core.models import JobKind
from store.access import selectors as access_selectors
from store.common.capabilities import MANAGE_OPTIONS
from store.common.pagination import named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from . import serializers as s

TAG = "ERP config"
CONFIG = {"*": MANAGE_OPTIONS}


class ErpConfigView(StoreAPIView):
    access = CONFIG
    openapi_tag = TAG


class ErpStatusView(ErpConfigView):
    @store_schema(
        summary="Whether the ERP is on and licensed",
        responses={200: s.ErpStatusSerializer},
        description="`available` is what every ERP route checks: the ERP is on (`active`) "
        "and the store's licence (a licence of this service) is active, unexpired and of the "
        "Business tier (`licensed`). Otherwise the ERP routes answer 403 "
        "`erp_not_active` or `erp_license_required`, and `reason` says why.",
    )
    def get(self, request):
        return Response(selectors.erp_status())


class ErpActivateView(ErpConfigView):
    @store_schema(
        summary="Turn the ERP on",
        request=s.ErpActivateSerializer,
        responses={200: s.ErpStatusSerializer},
        description="Under `license_key` (default: the key configured, ERP_LICENSE_KEY). A "
        "key that names no licence: 400; a licence that is revoked, expired or not of the "
        "Business tier: 409 `erp_license_required`; nothing changes then.",
        errors={409: "The licence cannot run the ERP (`erp_license_required`)."},
    )
    def post(self, request):
        fields = validate_body(s.ErpActivateSerializer, request.data)
        services.erp_activate(license_key=fields.get("license_key") or None, user=request.user)
        return Response(selectors.erp_status())


class ErpDeactivateView(ErpConfigView):
    @store_schema(
        summary="Turn the ERP off",
        request=None,
        responses={200: s.ErpStatusSerializer},
        description="The ERP's data stay; every ERP route answers 403 `erp_not_active` until "
        "POST /erp/activate.",
    )
    def post(self, request):
        services.erp_deactivate(user=request.user)
        return Response(selectors.erp_status())


# --- ERP users and roles -------------------------------------------------------------------------

USER_ID = OpenApiParameter("user_id", int, OpenApiParameter.PATH)
SLUG = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="The role's slug.")
NOT_HELD = "A capability the change moves is not held by the caller (`capability_not_held`)."
LAST_ADMIN = "Nobody active would hold manage_options any more (`last_administrator`)."
BUILT_IN = "A built-in role is read-only (`built_in_role`)."


def user_body(user_id: int) -> dict:
    return s.user_data(selectors.erp_user_get(user_id))


class ErpUserListView(ErpConfigView):
    @store_schema(
        summary="List the ERP's users",
        parameters=[s.ErpUserListQuerySerializer],
        responses={200: s.ErpUserPageSerializer},
        description="Accounts holding an ERP capability (their own, through an ERP role or "
        "through a store role such as Shop manager, which holds inventory), with their ERP "
        "roles and ERP capabilities; `administrators=true` adds manage_options holders and "
        "superusers. Filters `search` (e-mail, name), `role`, `capability`.",
    )
    def get(self, request):
        query = validate_query(s.ErpUserListQuerySerializer, request.query_params)
        page = page_of(
            selectors.erp_user_list(
                search=query.get("search"),
                role=query.get("role"),
                capability=query.get("capability"),
                administrators=query["administrators"],
            ),
            query,
        )
        return Response(named_page("users", page, s.user_data))

    @store_schema(
        summary="Give an account ERP roles",
        request=s.ErpUserAssignSerializer,
        responses={201: s.ErpUserSerializer, 200: s.ErpUserSerializer},
        errors={403: NOT_HELD, 404: "No account with that id or e-mail (`user_not_found`)."},
        description="An existing account (`user_id` or `email`) gets the ERP roles sent, added "
        "to those it holds (store roles are /managers' business: a slug that is not an ERP "
        "role is 400). 201 when the account held no ERP capability before, else 200. Only "
        "roles whose capabilities the caller holds can be given.",
    )
    def post(self, request):
        fields = validate_body(s.ErpUserAssignSerializer, request.data)
        user_id = fields.get("user_id") or access_selectors.user_id_by_email(fields["email"])
        new = services.erp_user_assign(
            actor=request.user, user_id=user_id, roles=fields.get("roles") or []
        )
        return Response(
            user_body(user_id), status=status.HTTP_201_CREATED if new else status.HTTP_200_OK
        )


class ErpUserDetailView(StoreResourceView):
    access = CONFIG
    openapi_tag = TAG
    resource = "ERP user"
    id_kwarg = "user_id"
    output_serializer = s.ErpUserSerializer
    write_serializer = s.ErpUserUpdateSerializer
    summaries = {
        "get": "Read an ERP user",
        "patch": "Replace an account's ERP roles",
        "put": "Replace an account's ERP roles",
        "delete": "Take an account's ERP roles away",
    }
    descriptions = {
        "get": "An account holding an ERP capability (404 `erp_user_not_found` otherwise).",
        "patch": "`roles` replaces the account's ERP roles ([] for none); its store roles "
        "stay. Only roles whose capabilities the caller holds can be given or taken away.",
        "put": "Same as PATCH.",
        "delete": "Takes the account's ERP roles and own ERP capabilities away (its store roles "
        "and the account stay; an administrator keeps every capability through "
        "manage_options).",
    }
    errors = {
        "patch": {403: NOT_HELD, 409: LAST_ADMIN},
        "put": {403: NOT_HELD, 409: LAST_ADMIN},
        "delete": {403: NOT_HELD, 409: LAST_ADMIN},
    }

    def read(self, request, pk):
        return user_body(pk)

    def update(self, request, pk, fields):
        services.erp_user_update(actor=request.user, user_id=pk, roles=fields.get("roles", []))

    def patch(self, request, **kwargs):
        """The account as it is now; 404 if it holds no ERP capability any more."""
        pk = kwargs[self.id_kwarg]
        fields = validate_body(self.write_serializer, request.data, partial=True)
        if "roles" in fields:
            self.update(request, pk, fields)
        else:
            selectors.erp_user_get(pk)
        user = access_selectors.manager_get(pk, managers_only=False)
        return Response(s.user_data(user))

    def remove(self, request, pk):
        services.erp_user_remove(actor=request.user, user_id=pk)


def roles_body(request, query) -> dict:
    page = page_of(
        selectors.erp_role_list(search=query.get("search"), built_in=query.get("built_in")),
        query,
    )
    return named_page("roles", page, s.role_data, domains=s.domain_list(request.user))


def role_body(slug: str) -> dict:
    return s.role_data(selectors.erp_role_get(slug))


class ErpRoleListView(ErpConfigView):
    @store_schema(
        summary="List the ERP's capabilities and roles",
        parameters=[s.ErpRoleListQuerySerializer],
        responses={200: s.ErpRolePageSerializer},
        description="`domains`: the ERP's capabilities, one per domain (invoicing, inventory, "
        "purchasing, accounting, crm, hr), each `grantable` when the caller holds it. `roles`: "
        "the ERP roles, store roles holding ERP capabilities only: the built-in ones "
        "(Accountant, Warehouse, Purchaser, Sales, HR officer; read-only) first, then custom "
        "ones by name. Filters `search`, `built_in`.",
    )
    def get(self, request):
        query = validate_query(s.ErpRoleListQuerySerializer, request.query_params)
        return Response(roles_body(request, query))

    @store_schema(
        summary="Create an ERP role",
        request=s.ErpRoleCreateSerializer,
        responses={201: s.ErpRoleSerializer},
        errors={403: NOT_HELD, 409: "A racing request took the name or slug (`duplicate_role`)."},
        description="A store role with ERP capabilities only (at least one; any other is "
        "400). The name is unique among all roles without regard to case and the slug unique "
        "(400 `duplicate_role`). Only capabilities the caller holds can be put in a role.",
    )
    def post(self, request):
        fields = validate_body(s.ErpRoleCreateSerializer, request.data)
        group = services.erp_role_create(actor=request.user, fields=fields)
        return Response(role_body(group.store_role.slug), status=status.HTTP_201_CREATED)


class ErpRoleDetailView(ErpConfigView):
    @store_schema(
        summary="Read an ERP role",
        parameters=[SLUG],
        responses={200: s.ErpRoleSerializer},
        description="404 `role_not_found` for a slug that names no role or a store role that "
        "is not the ERP's.",
    )
    def get(self, request, slug):
        return Response(role_body(slug))

    @store_schema(
        summary="Update an ERP role (partial)",
        parameters=[SLUG],
        request=s.ErpRoleUpdateSerializer,
        responses={200: s.ErpRoleSerializer},
        errors={403: NOT_HELD, 409: f"{BUILT_IN} {LAST_ADMIN}"},
        description="`name`, `description`, `capabilities` (replaces them; ERP capabilities "
        "only, at least one); the slug is set once (400). Only capabilities the caller holds "
        "can be added or taken away.",
    )
    def patch(self, request, slug):
        fields = validate_body(s.ErpRoleUpdateSerializer, request.data, partial=True)
        services.erp_role_update(actor=request.user, slug=slug, fields=fields)
        return Response(role_body(slug))

    @store_schema(
        summary="Delete an ERP role",
        parameters=[SLUG],
        responses={204: None},
        errors={403: NOT_HELD, 409: f"{BUILT_IN} {LAST_ADMIN}"},
        description="Its holders lose the role; their accounts stay. Only a caller who holds "
        "every capability of the role may delete it.",
    )
    def delete(self, request, slug):
        services.erp_role_delete(actor=request.user, slug=slug)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- The jobs: data migration and inventory backfill ---------------------------------------------

JOB_ID = OpenApiParameter("job_id", int, OpenApiParameter.PATH)
RUNNING = "A job of this kind is already queued or running (`erp_job_running`)."
NOT_RUNNING = "No job of this kind is queued or running (`erp_job_not_running`)."
NO_JOB = "No job of this kind has been started (`erp_job_not_found`)."
JOB_TEXT = (
    "The job runs in the background in batches (a Celery task each, sent through the "
    "outbox: a broker outage delays it, never loses it) and answers 202 with its state; "
    "follow it with the status route (`progress`, `counts`, `errors`). It survives a worker "
    "crash: it goes on from its last processed row."
)


class ErpMigrateDataStartView(ErpConfigView):
    @store_schema(
        summary="Import the store's data into the ERP",
        request=s.ErpMigrateStartSerializer,
        responses={202: s.ErpJobSerializer},
        errors={409: RUNNING},
        description="Customers (as ERP contacts with their order counts; erased ones skipped), "
        "orders (number, customer, status, totals, dates) and stock levels (the opening stock: "
        "quantity, unit cost, value) are written to the ERP's registers, which invoicing and "
        "accounting read. Importing again refreshes them. " + JOB_TEXT,
    )
    def post(self, request):
        fields = validate_body(s.ErpMigrateStartSerializer, request.data)
        job = services.migrate_data_start(include=fields.get("include"), user=request.user)
        return Response(s.job_data(job), status=status.HTTP_202_ACCEPTED)


class ErpMigrateDataJobView(ErpConfigView):
    @store_schema(
        summary="Read a data import",
        parameters=[JOB_ID],
        responses={200: s.ErpJobSerializer},
    )
    def get(self, request, job_id):
        return Response(s.job_data(selectors.job_get(JobKind.MIGRATE_DATA, job_id)))


class ErpBackfillStartView(ErpConfigView):
    @store_schema(
        summary="Fill the stock levels' missing costs and reorder points",
        request=s.ErpBackfillStartSerializer,
        responses={202: s.ErpJobSerializer},
        errors={409: RUNNING},
        description="For each stock level without them: `unit_cost` = the item's list "
        "price (the variant's, else the product's) times `cost_ratio` (levels of items without a "
        "price are counted as `no_price`); `reorder_point` = the product's low-stock threshold, "
        "else `reorder_point`; `reorder_quantity` when given. Values a level has are never "
        "changed. " + JOB_TEXT,
    )
    def post(self, request):
        fields = validate_body(s.ErpBackfillStartSerializer, request.data)
        options = {k: fields[k] for k in ("reorder_point", "reorder_quantity") if k in fields}
        job = services.inventory_backfill_start(
            cost_ratio=fields.get("cost_ratio"), user=request.user, **options
        )
        return Response(s.job_data(job), status=status.HTTP_202_ACCEPTED)


def job_views(prefix: str, kind: str, noun: str, cancelled: str) -> tuple[type, type]:
    """The status and cancel routes of one kind of job (the same for both kinds), named
    `<prefix>StatusView` and `<prefix>CancelView` (their OpenAPI operation ids)."""

    class StatusView(ErpConfigView):
        @store_schema(
            summary=f"The latest {noun}", responses={200: s.ErpJobSerializer}, errors={404: NO_JOB}
        )
        def get(self, request):
            return Response(s.job_data(selectors.job_latest(kind)))

    class CancelView(ErpConfigView):
        @store_schema(
            summary=f"Cancel the running {noun}",
            request=None,
            responses={200: s.ErpJobSerializer},
            errors={409: NOT_RUNNING},
            description=f"It stops after the batch under way; {cancelled}",
        )
        def post(self, request):
            return Response(s.job_data(services.job_cancel(kind=kind, user=request.user)))

    for view, name in ((StatusView, "StatusView"), (CancelView, "CancelView")):
        view.__name__ = view.__qualname__ = prefix + name
    return StatusView, CancelView


ErpMigrateDataStatusView, ErpMigrateDataCancelView = job_views(
    "ErpMigrateData", JobKind.MIGRATE_DATA, "data import", "what it imported stays."
)
ErpBackfillStatusView, ErpBackfillCancelView = job_views(
    "ErpBackfill",
    JobKind.INVENTORY_BACKFILL,
    "inventory backfill",
    "the levels it filled keep their values.",
)


# --- Onboarding and the portal -----------------------------------------------------------------


class ErpOnboardingChecklistView(ErpConfigView):
    @store_schema(
        summary="What is left to set up",
        responses={200: s.ErpChecklistSerializer},
        description="Each step read from the state itself: the licence, the ERP turned on, a "
        "warehouse with its address, staff with ERP roles, stock costed, the store's data "
        "imported, an invoice series (once the invoicing app is installed), the portal.",
    )
    def get(self, request):
        return Response(selectors.onboarding_checklist())


class ErpPortalSettingsView(ErpConfigView):
    @store_schema(summary="The portal's settings", responses={200: s.ErpPortalSettingsSerializer})
    def get(self, request):
        return Response(s.portal_data(selectors.portal_settings()))

    @store_schema(
        summary="Change the portal's settings (partial)",
        request=s.ErpPortalSettingsUpdateSerializer,
        responses={200: s.ErpPortalSettingsSerializer},
        description="`enabled` (customers see their documents; needs at least one of "
        "`customer_documents`: invoices, credit_notes, orders), `suppliers_enabled` (needs "
        "`supplier_documents`: purchase_orders, goods_received), `welcome_text` (up to 2000 "
        "characters), `brand_colour` (#RRGGBB).",
    )
    def patch(self, request):
        fields = validate_body(s.ErpPortalSettingsUpdateSerializer, request.data, partial=True)
        row = services.portal_settings_update(fields=dict(fields), user=request.user)
        return Response(s.portal_data(row))
