"""Marketplace feeds: ec_manage_marketplace (or manage_options), except
the feed file itself, which a marketplace fetches with the feed's secret token.

Thin views over store.feeds.services and selectors.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.decorators import method_decorator
from django.utils.http import http_date, parse_http_date_safe
from django.views.decorators.cache import never_cache
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import has_capability, manage
from store.common.errors import rule_broken
from store.common.formats import iso
from store.common.pagination import Page, named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.feeds import selectors, services
from store.feeds.formats import FORMATS

from . import serializers as s

TAG = "Marketplace feeds"
MANAGE_MARKETPLACE = manage("marketplace")
ACCESS = {"*": MANAGE_MARKETPLACE}
MARKETPLACE = OpenApiParameter(
    "marketplace",
    str,
    OpenApiParameter.PATH,
    enum=list(selectors.MARKETPLACES),
    description="The marketplace (404 `marketplace_not_found` for another).",
)
NO_STORE = method_decorator(never_cache, name="dispatch")
UNKNOWN = {404: "No such marketplace (`marketplace_not_found`)."}

FORMATS_TEXT = """Formats: `google` is Google Merchant Center's RSS 2.0 feed (namespace \
`g:` = http://base.google.com/ns/1.0; one item per simple product and per enabled variant of \
a variable product, grouped by `g:item_group_id`); `skroutz` is Skroutz's XML \
(`<mywebstore><created_at/><products><product>...`, one product per store product, its \
variants' sizes in `size`). Prices include the tax of the store's country. A product lacking \
a required attribute (Google: title, description, image, price, brand, a valid GTIN if any; \
Skroutz: name, image, category, price, manufacturer, a valid EAN if any) is left out and \
listed in the status's skipped products; a generated feed is checked against its format \
(Skroutz: its XSD) before it replaces the stored one."""


def operation(summary: str, *, responses: dict, description: str, errors=None, **kwargs):
    """A marketplace route's OpenAPI operation: the `marketplace` path parameter and its 404
    come with it."""
    parameters = [MARKETPLACE, *kwargs.pop("parameters", [])]
    return store_schema(
        summary=summary,
        parameters=parameters,
        responses=responses,
        errors={**UNKNOWN, **(errors or {})},
        description=description,
        **kwargs,
    )


def _status(marketplace: str) -> dict:
    feed = services.feed_ensure(marketplace)
    return s.feed_data(feed, selectors.feed_file_meta(marketplace))


class FeedView(StoreAPIView):
    access = ACCESS
    openapi_tag = TAG


@NO_STORE
class FeedListView(FeedView):
    @store_schema(
        summary="List the marketplace feeds",
        responses={200: s.FeedPageSerializer},
        description="`{feeds, total, page, per_page, total_pages}`: every marketplace the "
        "store writes a feed for (one page), with its status: enabled, last generated at, "
        "item and skipped counts, its secret URL and its settings.\n\n" + FORMATS_TEXT,
    )
    def get(self, request):
        feeds = services.feeds_ensure()
        files = selectors.feed_files_meta()
        page = Page(items=feeds, page=1, per_page=max(len(feeds), 1), total=len(feeds))
        return Response(
            named_page("feeds", page, lambda feed: s.feed_data(feed, files.get(feed.marketplace)))
        )


@NO_STORE
class FeedDetailView(FeedView):
    @operation(
        summary="Read a marketplace feed's status and settings",
        responses={200: s.FeedSerializer},
        description="The feed's status (`never`, `queued`, `running`, `ready`, `failed` with "
        "its `error`), counts, ETag and secret `url`, and its settings.\n\n" + FORMATS_TEXT,
    )
    def get(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        return Response(_status(marketplace))

    @operation(
        summary="Change a marketplace feed's settings",
        request=s.FeedWriteSerializer,
        responses={200: s.FeedSerializer},
        description="Any of `enabled`, `include_out_of_stock`, `category_ids` (unknown ones "
        "refused, naming them), `shipping_price` and `shipping_country` (Google's "
        "`g:shipping`), and Skroutz's availability phrases; unknown fields are refused. The "
        "next generation uses them.",
    )
    def patch(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        fields = validate_body(s.FeedWriteSerializer, request.data, partial=True)
        services.feed_update(marketplace=marketplace, fields=dict(fields))
        return Response(_status(marketplace))

    @operation(
        summary="Change a marketplace feed's settings (same as PATCH)",
        request=s.FeedWriteSerializer,
        responses={200: s.FeedSerializer},
        description="Same as PATCH: only the fields sent change.",
    )
    def put(self, request, marketplace):
        return self.patch(request, marketplace)


class FeedGenerateView(FeedView):
    @operation(
        summary="Generate a marketplace feed",
        request=None,
        responses={202: s.FeedSerializer},
        errors={409: "The feed is not enabled (`feed_disabled`)."},
        description="Asks a worker to generate the feed (after this request commits; asks "
        "made while one waits join it) and answers its status, `queued`. Enabled feeds are "
        "also generated again by the beat when older than FEEDS_REGENERATE_MINUTES.",
    )
    def post(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        feed = services.generation_request(marketplace=marketplace)
        body = s.feed_data(feed, selectors.feed_file_meta(marketplace))
        return Response(body, status=status.HTTP_202_ACCEPTED)


@NO_STORE
class FeedRotateTokenView(FeedView):
    @operation(
        summary="Rotate a marketplace feed's secret URL token",
        request=None,
        responses={200: s.FeedSerializer},
        description="A new token, in force at once: the old feed URL answers 403 "
        "`invalid_feed_token` from now on; give the marketplace the new `url`.",
    )
    def post(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        feed = services.feed_rotate_token(marketplace=marketplace)
        return Response(s.feed_data(feed, selectors.feed_file_meta(marketplace)))


class FeedSkippedView(FeedView):
    @operation(
        summary="The products the last generation left out",
        parameters=[s.FeedSkippedQuerySerializer],
        responses={200: s.FeedSkippedPageSerializer},
        description="`{skipped, total, page, per_page, total_pages, skipped_total}`: each "
        "product (or variant) left out of the feed and the required attributes it lacks "
        "(`missing`). The first FEEDS_SKIPPED_KEPT are kept; `skipped_total` counts all.",
    )
    def get(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        query = validate_query(s.FeedSkippedQuerySerializer, request.query_params)
        feed = services.feed_ensure(marketplace)
        page = page_of(list(feed.skipped or []), query)
        return Response(named_page("skipped", page, skipped_total=feed.skipped_count))


FILE_ERRORS = {
    403: "Neither the feed's token nor ec_manage_marketplace (`invalid_feed_token`).",
    404: "No such marketplace, or the feed was never generated (`feed_not_generated`).",
}
TOKEN = OpenApiParameter("token", str, description="The feed's secret token (its status's `url`).")
NOT_MODIFIED = OpenApiResponse(description="Not modified (If-None-Match / If-Modified-Since).")


class FeedFileView(StoreAPIView):
    """The feed itself: for the marketplace (its secret `token`) or for staff."""

    access = {"*": PUBLIC}
    openapi_tag = TAG
    compressed = False

    @operation(
        summary="Fetch a marketplace feed (the XML)",
        parameters=[TOKEN],
        responses={
            (200, "application/rss+xml"): OpenApiTypes.STR,
            (200, "application/xml"): OpenApiTypes.STR,
            304: NOT_MODIFIED,
        },
        errors=FILE_ERRORS,
        description="The last generated feed, as stored: `ETag` (its SHA-256, Skroutz's "
        "`created_at` aside) and `Last-Modified`; `If-None-Match` (or `If-Modified-Since`) "
        "answers 304. Marketplaces "
        "fetch it without logging in, with the secret `token` of the feed's URL (rotate it to "
        "cut off an old URL); staff holding ec_manage_marketplace may fetch it without. "
        "Google's is `application/rss+xml`, Skroutz's `application/xml`.",
    )
    def get(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        token = request.query_params.get("token")
        feed = selectors.feed_of(marketplace)  # read only: a refused caller writes nothing
        matches = feed is not None and services.token_matches(feed, token)
        if not matches and not has_capability(request.user, MANAGE_MARKETPLACE):
            raise rule_broken(
                "This feed URL's token is not valid (it may have been rotated).",
                code="invalid_feed_token",
                status=403,
            )
        meta = selectors.feed_file_meta(marketplace) if feed is not None else None
        if meta is None:
            raise rule_broken(
                "The feed has not been generated yet.", code="feed_not_generated", status=404
            )
        etag = f'"{meta.etag}-gz"' if self.compressed else f'"{meta.etag}"'
        headers = {
            "ETag": etag,
            "Last-Modified": http_date(meta.modified_at.timestamp()),
            "Cache-Control": "private, no-cache",
            "X-Robots-Tag": "noindex",
        }
        if _not_modified(request, etag, meta.modified_at.timestamp()):
            response = HttpResponse(status=304)
        elif self.compressed:
            response = HttpResponse(
                selectors.feed_file_bytes(feed, compressed=True), content_type="application/gzip"
            )
            headers["Content-Disposition"] = f'attachment; filename="{marketplace}.xml.gz"'
        else:
            response = HttpResponse(
                selectors.feed_file_bytes(feed, compressed=False),
                content_type=FORMATS[marketplace].content_type,
            )
        for name, value in headers.items():
            response[name] = value
        return response


class FeedGzipView(FeedFileView):
    compressed = True

    @operation(
        summary="Fetch a marketplace feed, gzipped",
        parameters=[TOKEN],
        responses={(200, "application/gzip"): OpenApiTypes.BINARY, 304: NOT_MODIFIED},
        errors=FILE_ERRORS,
        description="The same feed as feed.xml, gzipped (`application/gzip`; Skroutz wants "
        "feeds over 10 MB compressed), with its own `ETag` (the feed's, suffixed `-gz`); the "
        "same token rule and 304s.",
    )
    def get(self, request, marketplace):
        return super().get(request, marketplace)


def _not_modified(request, etag: str, modified: float) -> bool:
    match = request.headers.get("If-None-Match")
    if match is not None:
        tags = [tag.strip().removeprefix("W/") for tag in match[:4096].split(",")]
        return "*" in tags or etag in tags
    since = parse_http_date_safe(request.headers.get("If-Modified-Since", "")[:200])
    return since is not None and int(modified) <= since


@NO_STORE
class CategoryMappingView(FeedView):
    def _answer(self, marketplace: str) -> Response:
        rows = selectors.mapping_rows(marketplace)
        for row in rows:
            row["updated_at"] = iso(row["updated_at"])
        return Response(
            {
                "marketplace": marketplace,
                "mapping": {str(row["category_id"]): row["value"] for row in rows},
                "entries": rows,
            }
        )

    @operation(
        summary="Read a marketplace's category mapping",
        responses={200: s.CategoryMappingSerializer},
        description="`{marketplace, mapping: {category_id: marketplace category}, entries}`: "
        "the store's categories mapped to the marketplace's (Google: `g:google_product_category`"
        "; Skroutz: the product's `category`). A product uses its deepest category's mapping, "
        "else its closest mapped ancestor's (Skroutz falls back to the store's path).",
    )
    def get(self, request, marketplace):
        selectors.marketplace_checked(marketplace)
        return self._answer(marketplace)

    def _write(self, request, marketplace: str, *, replace: bool) -> Response:
        selectors.marketplace_checked(marketplace)
        fields = validate_body(s.CategoryMappingWriteSerializer, request.data)
        services.mapping_set(marketplace=marketplace, entries=fields["mapping"], replace=replace)
        return self._answer(marketplace)

    @operation(
        summary="Replace a marketplace's category mapping",
        request=s.CategoryMappingWriteSerializer,
        responses={200: s.CategoryMappingSerializer},
        description="`{mapping: {category_id: marketplace category}}` becomes the whole "
        "mapping (categories left out lose theirs). Google: a numeric Google product category "
        "id or its full path (`Home & Garden > Kitchen & Dining`); Skroutz: the category path. "
        "Unknown store categories (`category_not_found`) and bad values are refused, each "
        "named; nothing changes on a refusal.",
    )
    def put(self, request, marketplace):
        return self._write(request, marketplace, replace=True)

    @operation(
        summary="Change entries of a marketplace's category mapping",
        request=s.CategoryMappingWriteSerializer,
        responses={200: s.CategoryMappingSerializer},
        description="As PUT, but only the entries sent change; a null value removes that "
        "category's entry.",
    )
    def patch(self, request, marketplace):
        return self._write(request, marketplace, replace=False)
