"""The managers' e-mail routes (/emails/..., capability ec_manage_emails)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework import status
from rest_framework.response import Response

from store.common.capabilities import manage
from store.common.params import validate_body, validate_query
from store.common.schema import store_schema
from store.common.views import StoreAPIView
from store.emails import selectors, services, types
from store.settings import selectors as store_settings

from . import serializers as s

TAG = "Emails"
MANAGE_EMAILS = manage("emails")
TYPE_PARAMETER = OpenApiParameter(
    "email_type",
    str,
    OpenApiParameter.PATH,
    enum=list(types.SLUGS),
    description="The e-mail type (404 `email_type_not_found` for another).",
)
TEMPLATE_400 = (
    "A template that does not parse, uses what templates cannot (attributes beyond the "
    "documented variables, macros, includes, deep loops), names an unknown variable or fails "
    "with the sample data: 400 `invalid_template`, each bad part named in `data.params`."
)
UNKNOWN_KEYS = "A key the body does not take (a misspelt one) is 400 naming it; nothing changes."


class EmailsView(StoreAPIView):
    access = {"*": MANAGE_EMAILS}
    openapi_tag = TAG


class EmailTemplateListView(EmailsView):
    @store_schema(
        summary="List the e-mail types and their templates",
        responses={200: s.TemplateListSerializer},
        description="Every e-mail the store sends, with its subject template, whether it is "
        "sent (`enabled`), whether staff customised it, and the variables its templates may "
        "use.",
    )
    def get(self, request):
        config = store_settings.get_all()
        rows = selectors.templates_by_type()
        templates = [
            s.template_summary(email_type, rows.get(slug), config)
            for slug, email_type in types.TYPES.items()
        ]
        return Response({"templates": templates, "total": len(templates)})


class EmailTemplateDetailView(EmailsView):
    def _answer(self, email_type):
        config = store_settings.get_all()
        row = selectors.template_row(email_type.slug)
        return Response(s.template_data(email_type, row, config))

    @store_schema(
        summary="Read an e-mail template",
        parameters=[TYPE_PARAMETER],
        responses={200: s.TemplateSerializer},
        description="The templates in use, which parts are customised, the defaults and the "
        "documented variables. Templates are Jinja2, sandboxed: `{{ order.number }}`, "
        "`{% for item in order.items %}...{% endfor %}`, `{% if payment.paid %}`, filters "
        "such as `default`, `upper`, `truncate`, `join`, `length`.",
    )
    def get(self, request, email_type):
        return self._answer(selectors.email_type_get(email_type))

    @store_schema(
        summary="Change an e-mail template (partial)",
        parameters=[TYPE_PARAMETER],
        request=s.TemplateWriteSerializer,
        responses={200: s.TemplateSerializer},
        description='Only the parts sent change; a part sent as null or "" goes back to its '
        f"default. `enabled` switches the type on or off. {TEMPLATE_400} Switching off an "
        "account e-mail: 400 `email_type_required`. Nothing is saved on a refusal. "
        f"{UNKNOWN_KEYS}",
    )
    def patch(self, request, email_type):
        email_type = selectors.email_type_get(email_type)
        fields = validate_body(s.TemplateWriteSerializer, request.data, partial=True)
        services.template_update(type=email_type.slug, fields=fields, user=request.user)
        return self._answer(email_type)

    @store_schema(
        summary="Change an e-mail template (as PATCH)",
        parameters=[TYPE_PARAMETER],
        request=s.TemplateWriteSerializer,
        responses={200: s.TemplateSerializer},
        description=f"The same partial update as PATCH (the store's convention). {UNKNOWN_KEYS}",
    )
    def put(self, request, email_type):
        return self.patch(request, email_type)

    @store_schema(
        summary="Reset an e-mail template to its default",
        parameters=[TYPE_PARAMETER],
        responses={204: None},
        description="Subject and bodies go back to the built-in defaults; whether the type "
        "is sent does not change.",
    )
    def delete(self, request, email_type):
        email_type = selectors.email_type_get(email_type)
        services.template_reset(type=email_type.slug, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailPreviewView(EmailsView):
    @store_schema(
        summary="Preview an e-mail",
        parameters=[TYPE_PARAMETER, s.PreviewQuerySerializer],
        responses={200: s.PreviewAnswerSerializer},
        description="The saved template rendered with sample data, or with an order's data "
        "(`order_id`; 404 `order_not_found`; 400 for an account e-mail). Sends nothing.",
    )
    def get(self, request, email_type):
        email_type = selectors.email_type_get(email_type)
        query = validate_query(s.PreviewQuerySerializer, request.query_params)
        return Response(
            services.email_preview(type=email_type.slug, order_id=query.get("order_id"))
        )

    @store_schema(
        summary="Preview an e-mail, with draft templates",
        parameters=[TYPE_PARAMETER],
        request=s.PreviewSerializer,
        responses={200: s.PreviewAnswerSerializer},
        description="As GET, with the parts given in the body rendered instead of the saved "
        f"ones (checked as a save checks them; nothing is saved). {TEMPLATE_400} {UNKNOWN_KEYS}",
    )
    def post(self, request, email_type):
        email_type = selectors.email_type_get(email_type)
        fields = validate_body(s.PreviewSerializer, request.data)
        draft = {part: fields[part] for part in types.PARTS if fields.get(part)}
        return Response(
            services.email_preview(
                type=email_type.slug, order_id=fields.get("order_id"), draft=draft
            )
        )


class EmailTestView(EmailsView):
    throttle_scopes = {"POST": "email_test"}

    @store_schema(
        summary="Send a test e-mail",
        request=s.TestEmailSerializer,
        responses={202: s.SentEmailSerializer},
        description="Sends `type` to `to` with the sample data, or an order's (`order_id`), "
        "subject prefixed with [Test], even while the type is off. Queued: it leaves after "
        "the answer (see the sent-mail log in the admin). Rate limited per account "
        f"(THROTTLE_RATE_EMAIL_TEST, default 10/hour). {UNKNOWN_KEYS}",
        errors={404: "No order with `order_id` (`order_not_found`)."},
    )
    def post(self, request):
        fields = validate_body(s.TestEmailSerializer, request.data)
        email = services.email_test(
            type=fields["type"],
            to=fields["to"],
            order_id=fields.get("order_id"),
            user=request.user,
        )
        return Response(s.sent_email_data(email), status=status.HTTP_202_ACCEPTED)


class EmailResendView(EmailsView):
    @store_schema(
        summary="Send an order's e-mail again",
        parameters=[OpenApiParameter("order_id", int, OpenApiParameter.PATH)],
        request=s.ResendSerializer,
        responses={202: s.SentEmailSerializer},
        description="The order confirmation (or `type`, an order e-mail) to the order's "
        "customer, or the store's notice to the store's address, with the order's data now, "
        f"even while the type is off. 404 `order_not_found`. {UNKNOWN_KEYS}",
        errors={409: "Nobody to send it to (`order_has_no_email`, `no_store_email`)."},
    )
    def post(self, request, order_id):
        fields = validate_body(s.ResendSerializer, request.data)
        email = services.order_email_resend(
            order_id=order_id, type=fields["type"], user=request.user
        )
        return Response(s.sent_email_data(email), status=status.HTTP_202_ACCEPTED)


class EmailSettingsView(EmailsView):
    @store_schema(
        summary="Read the e-mail settings",
        responses={200: s.SettingsSerializer},
        description="The sender (`from` is the header the e-mails carry) and which types "
        "are sent. Stored as the `emails` section of the store settings.",
    )
    def get(self, request):
        return Response(selectors.email_settings())

    @store_schema(
        summary="Change the e-mail settings (partial)",
        request=s.SettingsWriteSerializer,
        responses={200: s.SettingsSerializer},
        description="Only the keys sent change. `enabled_types` is the whole list of types "
        "to send (the others are switched off); leaving out an account e-mail is 400 "
        f"`email_type_required`. Nothing is stored on a refusal. {UNKNOWN_KEYS}",
    )
    def patch(self, request):
        fields = validate_body(s.SettingsWriteSerializer, request.data, partial=True)
        return Response(services.email_settings_update(values=fields, user=request.user))

    @store_schema(
        summary="Change the e-mail settings (as PATCH)",
        request=s.SettingsWriteSerializer,
        responses={200: s.SettingsSerializer},
        description=f"The same partial update as PATCH (the store's convention). {UNKNOWN_KEYS}",
    )
    def put(self, request):
        return self.patch(request)
