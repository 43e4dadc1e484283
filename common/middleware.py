import logging

from common.api.errors import ApiError, database_unavailable, style_for_path
from common.api.throttling import ATTRIBUTE
from common.jsonload import unstorable_text_problem

logger = logging.getLogger("django.request")


class ApiErrorMiddleware:
    """Answers an unexpected exception under an API prefix with a JSON 500, DEBUG or not.

    The exception is logged with its traceback; the client learns nothing of the internals.
    The database unreachable is no crash: 503 `service_unavailable` with Retry-After.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        style = style_for_path(request.path)
        if style is None:
            return None
        unavailable = database_unavailable(exception)
        if unavailable is not None:
            return style.json_response(unavailable)
        logger.exception("Unhandled error on %s %s", request.method, request.path)
        return style.json_response(
            ApiError(500, "server_error", "An unexpected error occurred. It has been logged.")
        )


# The longest path and query string (as sent, percent-encoded) the APIs read. gunicorn reads
# request lines of up to 8190 bytes (config/gunicorn_conf.py): a longer URL than this one but
# shorter than that is refused here, as JSON in the namespace's shape.
MAX_URI_LENGTH = 8000


def uri_too_long(request) -> ApiError | None:
    """414 `uri_too_long` when the path and query string pass MAX_URI_LENGTH."""
    length = len(request.get_full_path())
    if length <= MAX_URI_LENGTH:
        return None
    return ApiError(
        414,
        "uri_too_long",
        f"The URL is too long: {length} characters of path and query string, at most "
        f"{MAX_URI_LENGTH}.",
    )


class UnstorableInputMiddleware:
    """Under an API prefix, refuses a URL longer than MAX_URI_LENGTH (414), and a path or query
    string holding text no database can store.

    A NUL character (`%00`: PostgreSQL refuses it in text) or an unpaired surrogate would
    otherwise reach a lookup and crash it. A path segment answers 404 in the namespace's style
    (nothing can be named so); a query parameter answers 400 naming the parameter. Request
    bodies are checked by the JSON and multipart parsers (common.api.parsers).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        style = style_for_path(request.path)
        if style is not None:
            refusal = uri_too_long(request) or self.refusal(request)
            if refusal is not None:
                return style.json_response(refusal)
        return self.get_response(request)

    @staticmethod
    def refusal(request) -> ApiError | None:
        problem = unstorable_text_problem(request.path)
        if problem:
            return ApiError(404, "not_found", f"No resource: the path {problem}.")
        errors: dict[str, list[str]] = {}
        for name, values in request.GET.lists():
            for text in (name, *values):
                problem = unstorable_text_problem(text)
                if problem:
                    errors[_printable(name)] = [f"The parameter {problem}."]
                    break
        if not errors:
            return None
        names = ", ".join(errors)
        return ApiError(
            400, "invalid_param", f"Invalid query parameter(s): {names}.", errors=errors
        )


def _printable(name: str) -> str:
    return name if unstorable_text_problem(name) is None else repr(name)[1:-1]


class RateLimitHeadersMiddleware:
    """Answers the rate limit a request was counted against in the IETF draft's headers
    (RateLimit-Limit, -Remaining, -Reset, -Policy; common.api.throttling)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        standing = getattr(request, ATTRIBUTE, None)
        if standing is not None:
            for name, value in standing.headers().items():
                response[name] = value
        return response
