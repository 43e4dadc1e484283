"""The page builder's routes of the theme namespace (spec: Theme namespace; "Builder endpoints
require edit_posts or edit_post; storefront reads are generally public"), on the store's view
kernel (store.common.views).

- A published layout (GET /builder/layout/{id}) and the presets are public; a draft is read
  by builders only (others get 404, as for a page without a layout).
- edit_post: save layouts (new ones and one's own), preview, render, the block types, read
  templates. edit_posts satisfies edit_post and also edits every layout and the templates.
- Renders answer JSON `{html, ...}` (the kernel speaks JSON only): the HTML escapes every
  value (theme.builder.render).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from store.common.capabilities import EDIT_POST, EDIT_POSTS, has_capability
from store.common.errors import not_found
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC, required_access
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from theme.builder import blocks as block_types
from theme.builder import selectors, services
from theme.builder.models import LayoutStatus

from . import serializers as s

TAG = "Theme page builder"
PAGE_ID = OpenApiParameter(
    "page_id", int, OpenApiParameter.PATH, description="The page or post id the layout is of."
)
TEMPLATE_ID = OpenApiParameter(
    "template_id", int, OpenApiParameter.PATH, description="A template id."
)
INVALID_BLOCK = (
    " 400 `invalid_block` names each bad block by its path (`data.params`, e.g. "
    "`blocks[2].children[0].settings.level`): an unknown type, settings its type's schema "
    "refuses, children where none are allowed, too deep or too many blocks."
)


def _iso(value) -> str:
    return value.isoformat().replace("+00:00", "Z")


def layout_data(layout) -> dict:
    return {
        "page_id": layout.page_id,
        "status": layout.status,
        "version": layout.version,
        "blocks": layout.blocks,
        "author_id": layout.author_id,
        "created_at": _iso(layout.created_at),
        "updated_at": _iso(layout.updated_at),
    }


def template_summary(template) -> dict:
    return {
        "id": template.pk,
        "name": template.name,
        "description": template.description,
        "version": template.version,
        "block_count": block_types.count_blocks(template.blocks),
        "updated_at": _iso(template.updated_at),
    }


def template_data(template) -> dict:
    return {
        **template_summary(template),
        "blocks": template.blocks,
        "author_id": template.author_id,
        "created_at": _iso(template.created_at),
    }


class BuilderView(StoreAPIView):
    """edit_posts holds edit_post: a method that needs edit_post lets edit_posts in."""

    openapi_tag = TAG

    def check_permissions(self, request):
        if required_access(self, request.method) == EDIT_POST and has_capability(
            request.user, EDIT_POSTS
        ):
            return
        super().check_permissions(request)


def is_builder(request) -> bool:
    user = request.user
    return has_capability(user, EDIT_POST) or has_capability(user, EDIT_POSTS)


def no_store(response: Response) -> Response:
    response["Cache-Control"] = "no-store"
    return response


# --- Layouts ------------------------------------------------------------------------------------


class LayoutView(BuilderView):
    access = {"GET": PUBLIC, "POST": EDIT_POST}

    @store_schema(
        summary="The layout of a page",
        parameters=[PAGE_ID],
        responses={200: s.LayoutAnswerSerializer},
        description="Public when published; a draft is read with edit_post or edit_posts "
        "(anyone else: 404 `layout_not_found`, as for a page without a layout).",
    )
    def get(self, request, page_id: int):
        layout = selectors.layout_get(page_id)
        if layout.status != LayoutStatus.PUBLISHED and not is_builder(request):
            raise not_found("layout", page_id)
        return no_store(Response({"layout": layout_data(layout)}))

    @store_schema(
        summary="Save the layout of a page",
        parameters=[PAGE_ID],
        request=s.LayoutBodySerializer,
        responses={201: s.LayoutAnswerSerializer, 200: s.LayoutAnswerSerializer},
        errors={
            409: "`version_conflict`: the version sent is not the current one (someone saved "
            "since, or version 0 for a layout that exists). Nothing changed."
        },
        description="Creates the layout (version 0: 201) or replaces it (the version read: "
        "200, the version raised by one). Needs edit_post; a layout first saved by someone "
        "else needs edit_posts (403 `cannot_edit_layout`)." + INVALID_BLOCK,
    )
    def post(self, request, page_id: int):
        body = validate_body(s.LayoutBodySerializer, request.data)
        layout = services.layout_save(
            page_id=page_id,
            blocks=body["blocks"],
            status=body["status"],
            version=body["version"],
            user=request.user,
        )
        created = body["version"] == 0
        return no_store(Response({"layout": layout_data(layout)}, status=201 if created else 200))


class PreviewView(BuilderView):
    access = {"GET": EDIT_POST, "POST": EDIT_POST}

    @store_schema(
        summary="Preview the saved layout of a page",
        parameters=[PAGE_ID],
        responses={200: s.PreviewSerializer},
        description="The saved layout (draft or published) rendered to HTML, every value "
        "escaped. Needs edit_post. 404 `layout_not_found` without one.",
    )
    def get(self, request, page_id: int):
        layout = selectors.layout_get(page_id)
        body = {
            "page_id": page_id,
            "version": layout.version,
            "status": layout.status,
            "html": selectors.render(layout.blocks),
        }
        return no_store(Response(body))

    @store_schema(
        summary="Preview a layout for a page (not saved)",
        parameters=[PAGE_ID],
        request=s.BlocksBodySerializer,
        responses={200: s.PreviewSerializer},
        description="The posted layout rendered to HTML as the page would show it; nothing "
        "is saved. Needs edit_post." + INVALID_BLOCK,
    )
    def post(self, request, page_id: int):
        body = validate_body(s.BlocksBodySerializer, request.data)
        blocks = services.layout_clean(body["blocks"])
        answer = {"page_id": page_id, "version": None, "status": None}
        return no_store(Response({**answer, "html": selectors.render(blocks)}))


class BlockTypesView(BuilderView):
    access = {"GET": EDIT_POST}

    @store_schema(
        summary="The block types",
        responses={200: s.BlockTypesSerializer},
        description="Each type with the JSON Schema of its settings, whether it holds "
        "children (and which), and the layout limits. Needs edit_post.",
    )
    def get(self, request):
        return Response(
            {
                "blocks": block_types.describe(),
                "limits": {
                    "max_depth": block_types.MAX_DEPTH,
                    "max_blocks": block_types.MAX_BLOCKS,
                },
            }
        )


class RenderView(BuilderView):
    access = {"POST": EDIT_POST}

    @store_schema(
        summary="Render a layout to HTML",
        request=s.BlocksBodySerializer,
        responses={200: s.RenderSerializer},
        description="Server-side render: every text and attribute escaped, URLs only http(s), "
        "site-relative or #fragments, no script, style or raw HTML. Nothing is saved. Needs "
        "edit_post." + INVALID_BLOCK,
    )
    def post(self, request):
        body = validate_body(s.BlocksBodySerializer, request.data)
        blocks = services.layout_clean(body["blocks"])
        html = selectors.render(blocks)
        return no_store(Response({"html": html, "block_count": block_types.count_blocks(blocks)}))


# --- Templates ----------------------------------------------------------------------------------


class TemplatesView(BuilderView):
    access = {"GET": EDIT_POST, "POST": EDIT_POSTS}

    @store_schema(
        summary="The saved layout templates",
        parameters=[s.TemplateQuerySerializer],
        responses={200: s.TemplatePageSerializer},
        description="By name, paged (`{templates, total, page, per_page, total_pages}`), "
        "without their blocks. Needs edit_post.",
    )
    def get(self, request):
        query = validate_query(s.TemplateQuerySerializer, request.query_params)
        page = selectors.templates_page(
            page=query["page"], per_page=query["per_page"], search=query["search"]
        )
        return Response(
            {
                "templates": [template_summary(t) for t in page.items],
                **page.meta(),
            }
        )

    @store_schema(
        summary="Save a layout template",
        request=s.TemplateBodySerializer,
        responses={201: s.TemplateAnswerSerializer},
        description="A named layout reusable across pages (version 1). Needs edit_posts."
        + INVALID_BLOCK,
    )
    def post(self, request):
        body = validate_body(s.TemplateBodySerializer, request.data)
        body.pop("version", None)
        template = services.template_create(fields=body, user=request.user)
        return Response({"template": template_data(template)}, status=201)


class TemplateView(BuilderView):
    access = {"GET": EDIT_POST, "PUT": EDIT_POSTS, "PATCH": EDIT_POSTS, "DELETE": EDIT_POSTS}
    CONFLICT = {
        409: "`version_conflict`: the version sent is not the current one. Nothing changed."
    }

    @store_schema(
        summary="A layout template",
        parameters=[TEMPLATE_ID],
        responses={200: s.TemplateAnswerSerializer},
        description="With its blocks. Needs edit_post. 404 `template_not_found`.",
    )
    def get(self, request, template_id: int):
        return Response({"template": template_data(selectors.template_get(template_id))})

    def _update(self, request, template_id: int, *, partial: bool) -> Response:
        body = validate_body(s.TemplateBodySerializer, request.data, partial=partial)
        version = body.pop("version", None)
        template = services.template_update(template_id=template_id, fields=body, version=version)
        return Response({"template": template_data(template)})

    @store_schema(
        summary="Replace a layout template",
        parameters=[TEMPLATE_ID],
        request=s.TemplateBodySerializer,
        responses={200: s.TemplateAnswerSerializer},
        errors=CONFLICT,
        description="Name, description and blocks; `version` (the one read) guards against "
        "overwriting someone else's change. Needs edit_posts." + INVALID_BLOCK,
    )
    def put(self, request, template_id: int):
        return self._update(request, template_id, partial=False)

    @store_schema(
        summary="Change a layout template",
        parameters=[TEMPLATE_ID],
        request=s.TemplateBodySerializer,
        responses={200: s.TemplateAnswerSerializer},
        errors=CONFLICT,
        description="Only the fields sent change; `version` as for PUT. Needs edit_posts."
        + INVALID_BLOCK,
    )
    def patch(self, request, template_id: int):
        return self._update(request, template_id, partial=True)

    @store_schema(
        summary="Delete a layout template",
        parameters=[TEMPLATE_ID],
        responses={200: s.TemplateDeletedSerializer},
        description="Pages built from it keep their own copy of its blocks. Needs edit_posts.",
    )
    def delete(self, request, template_id: int):
        services.template_delete(template_id=template_id)
        return Response({"id": template_id, "deleted": True})


# --- Presets ------------------------------------------------------------------------------------


def public_cache(response: Response) -> Response:
    response["Cache-Control"] = "public, max-age=300"
    return response


class PresetsView(BuilderView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="The shipped layout presets",
        parameters=[s.PresetQuerySerializer],
        responses={200: s.PresetListSerializer},
        description="Every preset (or one category's) without its blocks, and the categories. "
        "Public: presets are versioned data files shipped with the service.",
    )
    def get(self, request):
        query = validate_query(s.PresetQuerySerializer, request.query_params)
        return public_cache(
            Response(
                {
                    "presets": selectors.preset_summaries(query.get("category")),
                    "categories": selectors.preset_categories(),
                }
            )
        )


class PresetView(BuilderView):
    access = {"GET": PUBLIC}

    @store_schema(
        summary="A layout preset",
        parameters=[
            OpenApiParameter("category", str, OpenApiParameter.PATH, description="Its category."),
            OpenApiParameter("slug", str, OpenApiParameter.PATH, description="Its slug."),
        ],
        responses={200: s.PresetAnswerSerializer},
        description="With its blocks (valid against the block types). Public. 404 "
        "`preset_not_found`.",
    )
    def get(self, request, category: str, slug: str):
        return public_cache(Response({"preset": selectors.preset_get(category, slug)}))
