from django.conf import settings
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.access import selectors, services
from store.common import nonce as nonces
from store.common.authentication import SessionCookieAuthentication
from store.common.capabilities import MANAGE_MANAGERS
from store.common.pagination import named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.resources import StoreResourceView
from store.common.schema import store_schema
from store.common.views import StoreAPIView

from . import serializers as s


class NonceView(StoreAPIView):
    """The REST nonce of the caller's logged-in session (session cookie only)."""

    authentication_classes = [SessionCookieAuthentication]
    access = {"GET": LOGGED_IN}
    openapi_tag = "Authentication"

    @store_schema(
        summary="Get the REST nonce of the logged-in session",
        responses={200: s.NonceSerializer},
        description="A same-origin front end calls this once after log-in (with the session "
        f"cookie only) and then sends the answer in `{settings.NONCE_HEADER}` with every "
        "request. A cross-site page cannot read the answer. 401 without a logged-in session.",
    )
    def get(self, request):
        return Response(
            nonces.nonce_answer(request._request), headers={"Cache-Control": "no-store"}
        )


# --- Managers and roles (ec_manage_managers or manage_options) ----------------------------------

MANAGERS_TAG = "Managers"
MANAGERS = {"*": MANAGE_MANAGERS}
USER_ID = OpenApiParameter("user_id", int, OpenApiParameter.PATH)
SLUG = OpenApiParameter("slug", str, OpenApiParameter.PATH, description="The role's slug.")
NOT_HELD = "A capability the change moves is not held by the caller (`capability_not_held`)."
LAST_ADMIN = "Nobody active would hold manage_options any more (`last_administrator`)."


def manager_body(user_id: int) -> dict:
    return s.manager_data(selectors.manager_get(user_id))


def role_body(slug: str) -> dict:
    return s.role_data(selectors.role_get(slug))


class ManagerListView(StoreAPIView):
    access = MANAGERS
    openapi_tag = MANAGERS_TAG

    @store_schema(
        summary="List managers",
        parameters=[s.ManagerListQuerySerializer],
        responses={200: s.ManagerPageSerializer},
        description="Accounts that are staff, superusers, or hold a store role or capability, "
        "with their roles and capabilities. Filters `search` (e-mail, name), `role` (slug), "
        "`capability`, `is_active`; `orderby` id, email, name, registered. Answers "
        "`{managers, total, page, per_page, total_pages}`.",
    )
    def get(self, request):
        query = validate_query(s.ManagerListQuerySerializer, request.query_params)
        page = page_of(
            selectors.manager_list(
                search=query.get("search"),
                role=query.get("role"),
                capability=query.get("capability"),
                is_active=query.get("is_active"),
                orderby=query["orderby"],
                order=query["order"],
            ),
            query,
        )
        return Response(named_page("managers", page, s.manager_data))

    @store_schema(
        summary="Make an account a manager, or give a manager more roles",
        request=s.ManagerCreateSerializer,
        responses={201: s.ManagerSerializer, 200: s.ManagerSerializer},
        errors={403: NOT_HELD, 404: "No account with that id or e-mail (`user_not_found`)."},
        description="An existing account (`user_id` or `email`) gets the roles and "
        "capabilities sent, added to those it holds, and (`is_staff`, default true) access "
        "to the admin site. 201 when the account was not a manager, 200 when it was. Only "
        "capabilities the caller holds can be given.",
    )
    def post(self, request):
        fields = validate_body(s.ManagerCreateSerializer, request.data)
        user_id = fields.get("user_id") or selectors.user_id_by_email(fields["email"])
        user, was_manager = services.manager_assign(
            actor=request.user,
            user_id=user_id,
            roles=fields.get("roles"),
            capabilities=fields.get("capabilities"),
            is_staff=fields["is_staff"],
        )
        return Response(
            manager_body(user.pk),
            status=status.HTTP_200_OK if was_manager else status.HTTP_201_CREATED,
        )


class ManagerDetailView(StoreResourceView):
    access = MANAGERS
    openapi_tag = MANAGERS_TAG
    resource = "manager"
    id_kwarg = "user_id"
    output_serializer = s.ManagerSerializer
    write_serializer = s.ManagerUpdateSerializer
    descriptions = {
        "get": "The manager's roles, own capabilities and effective capabilities. An account "
        "that is not a manager is 404 `manager_not_found`.",
        "patch": "`roles` and `capabilities` replace those held (fields not sent stay); "
        "`is_staff` sets access to the admin site. Only capabilities the caller holds can be "
        "given or taken away.",
        "put": "Same as PATCH.",
        "delete": "The account stops being a manager: its store roles and own capabilities "
        "are taken away and it loses access to the admin site. The account itself is never "
        "deleted. A superuser is 409 `manager_is_superuser`.",
    }
    errors = {
        "patch": {403: NOT_HELD, 409: LAST_ADMIN},
        "put": {403: NOT_HELD, 409: LAST_ADMIN},
        "delete": {403: NOT_HELD, 409: f"{LAST_ADMIN} A superuser (`manager_is_superuser`)."},
    }

    def read(self, request, pk):
        return manager_body(pk)

    def update(self, request, pk, fields):
        services.manager_update(actor=request.user, user_id=pk, fields=fields)

    def patch(self, request, **kwargs):
        """The account as it is now, also when the change made it stop being a manager."""
        pk = kwargs[self.id_kwarg]
        fields = validate_body(self.write_serializer, request.data, partial=True)
        self.update(request, pk, fields)
        return Response(s.manager_data(selectors.manager_get(pk, managers_only=False)))

    def remove(self, request, pk):
        services.manager_remove(actor=request.user, user_id=pk)


class RoleListView(StoreAPIView):
    access = MANAGERS
    openapi_tag = MANAGERS_TAG

    @store_schema(
        summary="List roles",
        parameters=[s.RoleListQuerySerializer],
        responses={200: s.RolePageSerializer},
        description="The built-in roles (read-only) first, then custom roles by name; "
        "filters `search` (name, slug, description) and `built_in`. Answers "
        "`{roles, total, page, per_page, total_pages}`.",
    )
    def get(self, request):
        query = validate_query(s.RoleListQuerySerializer, request.query_params)
        page = page_of(
            selectors.role_list(search=query.get("search"), built_in=query.get("built_in")),
            query,
        )
        return Response(named_page("roles", page, s.role_data))

    @store_schema(
        summary="Create a custom role",
        request=s.RoleCreateSerializer,
        responses={201: s.RoleSerializer},
        errors={403: NOT_HELD, 409: "A racing request took the name or slug (`duplicate_role`)."},
        description="A named set of capabilities. The name is unique without regard to case "
        "and the slug unique (400 `duplicate_role`); unknown capabilities are 400. Only "
        "capabilities the caller holds can be put in a role.",
    )
    def post(self, request):
        fields = validate_body(s.RoleCreateSerializer, request.data)
        group = services.role_create(actor=request.user, fields=fields)
        return Response(role_body(group.store_role.slug), status=status.HTTP_201_CREATED)


BUILT_IN_409 = "A built-in role is read-only (`built_in_role`)."


class RoleDetailView(StoreAPIView):
    access = MANAGERS
    openapi_tag = MANAGERS_TAG

    @store_schema(summary="Read a role", parameters=[SLUG], responses={200: s.RoleSerializer})
    def get(self, request, slug):
        return Response(role_body(slug))

    @store_schema(
        summary="Update a custom role (partial)",
        parameters=[SLUG],
        request=s.RoleUpdateSerializer,
        responses={200: s.RoleSerializer},
        errors={403: NOT_HELD, 409: f"{BUILT_IN_409} {LAST_ADMIN}"},
        description="`name`, `description`, `capabilities` (replaces the set); the slug is "
        "set once (400). Only capabilities the caller holds can be added or taken away.",
    )
    def patch(self, request, slug):
        fields = validate_body(s.RoleUpdateSerializer, request.data, partial=True)
        services.role_update(actor=request.user, slug=slug, fields=fields)
        return Response(role_body(slug))

    @store_schema(
        summary="Update a custom role (partial)",
        parameters=[SLUG],
        request=s.RoleUpdateSerializer,
        responses={200: s.RoleSerializer},
        errors={403: NOT_HELD, 409: f"{BUILT_IN_409} {LAST_ADMIN}"},
        description="Same as PATCH.",
    )
    def put(self, request, slug):
        return self.patch(request, slug)

    @store_schema(
        summary="Delete a custom role",
        parameters=[SLUG],
        responses={204: None},
        errors={403: NOT_HELD, 409: f"{BUILT_IN_409} {LAST_ADMIN}"},
        description="Its managers lose the role; their accounts stay. Only a caller who holds "
        "every capability of the role may delete it.",
    )
    def delete(self, request, slug):
        services.role_delete(actor=request.user, slug=slug)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CapabilityListView(StoreAPIView):
    access = MANAGERS
    openapi_tag = MANAGERS_TAG

    @store_schema(
        summary="List the capabilities",
        responses={200: s.CapabilityListSerializer},
        description="Every store capability with its description: the list the permission "
        "checks of every route read. `grantable` tells whether the caller holds it "
        "(manage_options holds them all).",
    )
    def get(self, request):
        return Response({"capabilities": s.capability_list(request.user)})
