from __future__ import annotations

from rest_framework.response import Response

from store.common.capabilities import MANAGE_ORDERS
from store.common.pagination import named_page, page_of
from store.common.params import validate_body, validate_query
from store.common.permissions import PUBLIC
from store.common.schema import store_schema
from theme.modules.api.views import OFF, ModuleView, iso_time
from theme.modules.quotes import selectors, services

from . import serializers as s


def quote_data(quote) -> dict:
    return {
        "id": quote.pk,
        "name": quote.name,
        "email": quote.email,
        "company": quote.company,
        "phone": quote.phone,
        "message": quote.message,
        "status": quote.status,
        "created_at": iso_time(quote.created_at),
        "items": [
            {"product_id": i.product_id, "title": i.product.title, "quantity": i.quantity}
            for i in quote.items.all()
        ],
    }


class QuotesView(ModuleView):
    module = "quotes"
    access = {"GET": MANAGE_ORDERS, "POST": PUBLIC}
    throttle_scopes = {"POST": "quote_request"}

    @store_schema(
        summary="Quote requests",
        parameters=[s.QuoteQuerySerializer],
        responses={200: s.QuotePageSerializer},
        description="Newest first, optionally by status. Needs ec_manage_orders.",
    )
    def get(self, request):
        query = validate_query(s.QuoteQuerySerializer, request.query_params)
        page = page_of(selectors.quotes(status=query.get("status")), query)
        return Response(named_page("quotes", page, quote_data))

    @store_schema(
        summary="Request a quote",
        request=s.QuoteRequestSerializer,
        responses={201: s.QuoteReceivedSerializer},
        errors={404: f"A product is not an active product (`product_not_found`). {OFF}"},
        description="Products (each once, at most 100) with quantities and contact details; "
        "staff answer by e-mail. Public, rate limited (THROTTLE_RATE_QUOTE_REQUEST).",
    )
    def post(self, request):
        body = validate_body(s.QuoteRequestSerializer, request.data)
        items = body.pop("items")
        quote = services.quote_request(user=request.user, fields=body, items=items)
        return Response(
            {
                "id": quote.pk,
                "status": quote.status,
                "message": "Thank you: we will answer your request by e-mail.",
            },
            status=201,
        )
