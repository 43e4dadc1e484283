from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.common.capabilities import MANAGE_CUSTOMERS
from store.common.pagination import named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import LOGGED_IN
from store.common.schema import store_schema
from theme.modules.api.serializers import ModuleDeletedSerializer, PageQuerySerializer
from theme.modules.api.views import OFF, ModuleView
from theme.modules.b2b import selectors, services

from . import serializers as s


def group_entry(group) -> dict:
    return {
        "id": group.pk,
        "name": group.name,
        "description": group.description,
        "discount_percent": str(group.discount_percent),
        "member_count": group.member_count
        if hasattr(group, "member_count")
        else group.memberships.count(),
    }


def group_data(group) -> dict:
    return {
        "id": group.pk,
        "name": group.name,
        "description": group.description,
        "discount_percent": str(group.discount_percent),
        "member_ids": sorted(group.memberships.values_list("user_id", flat=True)),
    }


GROUP_ID = OpenApiParameter("group_id", int, OpenApiParameter.PATH, description="A group id.")
GROUP_TEXT = (
    " A member's cart prices are the catalogue's less the group's `discount_percent` (the "
    "ec_cart_item_price hook). An account is in at most one group. Needs ec_manage_customers."
)


class GroupsView(ModuleView):
    module = "b2b"
    access = {"*": MANAGE_CUSTOMERS}

    @store_schema(
        summary="Customer groups",
        parameters=[PageQuerySerializer],
        responses={200: s.GroupPageSerializer},
        description="By name, with their member counts." + GROUP_TEXT,
    )
    def get(self, request):
        query = validate_query(PageQuerySerializer, request.query_params)
        return Response(named_page("groups", page_of(selectors.groups(), query), group_entry))

    @store_schema(
        summary="Create a customer group",
        request=s.GroupWriteSerializer,
        responses={201: s.GroupBodySerializer},
        errors={409: "A group with this name exists (`customer_group_exists`)."},
        description="`member_ids` moves those accounts into it." + GROUP_TEXT,
    )
    def post(self, request):
        body = validate_body(s.GroupWriteSerializer, request.data)
        members = body.pop("member_ids", None)
        group = services.group_save(fields=body, member_ids=members)
        return Response({"group": group_data(group)}, status=201)


class GroupView(ModuleView):
    module = "b2b"
    access = {"*": MANAGE_CUSTOMERS}

    @store_schema(
        summary="A customer group",
        parameters=[GROUP_ID],
        responses={200: s.GroupBodySerializer},
        errors={404: f"No such group (`customer_group_not_found`). {OFF}"},
        description="With its member ids." + GROUP_TEXT,
    )
    def get(self, request, group_id: int):
        return Response({"group": group_data(services.group_get(group_id=group_id))})

    def _write(self, request, group_id: int, *, partial: bool) -> Response:
        body = validate_body(s.GroupWriteSerializer, request.data, partial=partial)
        members = body.pop("member_ids", None)
        group = services.group_save(fields=body, member_ids=members, group_id=group_id)
        return Response({"group": group_data(group)})

    @store_schema(
        summary="Replace a customer group",
        parameters=[GROUP_ID],
        request=s.GroupWriteSerializer,
        responses={200: s.GroupBodySerializer},
        errors={
            404: f"No such group (`customer_group_not_found`). {OFF}",
            409: "A group with this name exists (`customer_group_exists`).",
        },
        description="`name` required; `member_ids`, when sent, replaces the members." + GROUP_TEXT,
    )
    def put(self, request, group_id: int):
        return self._write(request, group_id, partial=False)

    @store_schema(
        summary="Change a customer group",
        parameters=[GROUP_ID],
        request=s.GroupWriteSerializer,
        responses={200: s.GroupBodySerializer},
        errors={
            404: f"No such group (`customer_group_not_found`). {OFF}",
            409: "A group with this name exists (`customer_group_exists`).",
        },
        description="Only the keys sent change." + GROUP_TEXT,
    )
    def patch(self, request, group_id: int):
        return self._write(request, group_id, partial=True)

    @store_schema(
        summary="Delete a customer group",
        parameters=[GROUP_ID],
        responses={200: ModuleDeletedSerializer},
        errors={404: f"No such group (`customer_group_not_found`). {OFF}"},
        description="Its members leave it (their accounts stay)." + GROUP_TEXT,
    )
    def delete(self, request, group_id: int):
        services.group_delete(group_id=group_id)
        return Response({"deleted": 1})


class MyGroupView(ModuleView):
    module = "b2b"
    access = {"GET": LOGGED_IN}

    @store_schema(
        summary="My customer group",
        responses={200: s.MyGroupSerializer},
        description="The logged-in customer's group (null when in none): its name and discount.",
    )
    def get(self, request):
        group = selectors.group_of(request.user)
        return Response({"group": group_entry(group) if group is not None else None})
