"""The labor registry: its settings, a connection test, the submissions and their
retries.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from erp.core.views import ERPView
from erp.hr import labor, selectors
from erp.hr.access import HR
from store.common.params import validate_body, validate_query
from store.common.resources import StoreResourceView
from store.common.schema import store_schema

from .. import serializers as s

REGISTRY_TAG = "Labor registry"

SUBMISSION_ID = OpenApiParameter("submission_id", int, OpenApiParameter.PATH)


class RegistryView(ERPView):
    access = {"*": HR}
    openapi_tag = REGISTRY_TAG


class RegistrySettingsView(RegistryView):
    @store_schema(
        summary="Labor registry settings",
        responses={200: s.RegistrySettingsSerializer},
        description="The registry (`sandbox`, the default, or `ergani`), ERGANI's environment "
        "and user name (the password masked), the employer filed as, and `auto_submit`.",
    )
    def get(self, request):
        return Response(s.registry_settings_data(labor.settings_data()))

    @store_schema(
        summary="Change the labor registry settings",
        request=s.RegistrySettingsWriteSerializer,
        responses={200: s.RegistrySettingsSerializer},
        description="Only the fields sent change. ERGANI's credentials are sealed at rest "
        "(common.sealed) and never answered; `employer_tax_id` is checked as a Greek AFM.",
    )
    def put(self, request):
        fields = validate_body(s.RegistrySettingsWriteSerializer, request.data, partial=True)
        labor.settings_update(fields=dict(fields))
        return Response(s.registry_settings_data(labor.settings_data()))


class RegistryTestView(RegistryView):
    @store_schema(
        summary="Test the labor registry connection",
        request=None,
        responses={200: s.LaborConnectionTestSerializer},
        errors={502: "The registry could not be reached (`labor_registry_unavailable`)."},
        description="A real call with the stored credentials (ERGANI: a log-in). Wrong or "
        "missing credentials answer 200 with `ok: false` and the reason.",
    )
    def post(self, request):
        return Response(labor.connection_test())


class SubmissionListView(RegistryView):
    @store_schema(
        summary="List labor registry submissions",
        parameters=[s.SubmissionListQuerySerializer],
        responses={200: s.SubmissionPageSerializer},
        description="`{submissions, total, page, per_page, total_pages}`, newest first: "
        "hirings, terminations and working-time changes built from HR events. Filters: "
        "`status`, `kind` (comma-separated), `employee_id`, `date_from`/`date_to` (created).",
    )
    def get(self, request):
        query = validate_query(s.SubmissionListQuerySerializer, request.query_params)
        page = selectors.submission_page(query)
        return Response(s.named_page("submissions", page, s.submission_data))


class SubmissionDetailView(RegistryView, StoreResourceView):
    resource = "labor registry submission"
    id_kwarg = "submission_id"
    output_serializer = s.SubmissionSerializer
    descriptions = {"get": "Its status, protocol number, attempts and the registry's errors."}

    def read(self, request, pk):
        return s.submission_data(selectors.submission_get(pk))


class SubmissionRetryView(RegistryView):
    @store_schema(
        summary="Send a labor registry submission again",
        parameters=[SUBMISSION_ID],
        request=None,
        responses={200: s.SubmissionSerializer},
        errors={409: "Pending or sent already (`submission_not_retryable`)."},
        description="A rejected or failed submission becomes pending and is filed by a task "
        "after the commit, to the registry of the settings now, with the employer's details "
        "and the employee's record as they are now (the event's dates and hours stay).",
    )
    def post(self, request, submission_id):
        labor.submission_retry(submission_id=submission_id)
        return Response(s.submission_data(selectors.submission_get(submission_id)))
