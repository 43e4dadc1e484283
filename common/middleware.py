import logging

from common.api.errors import ApiError, style_for_path

logger = logging.getLogger("django.request")


class ApiErrorMiddleware:
    """Answers an unexpected exception under an API prefix with a JSON 500, DEBUG or not.

    The exception is logged with its traceback; the client learns nothing of the internals.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        style = style_for_path(request.path)
        if style is None:
            return None
        logger.exception("Unhandled error on %s %s", request.method, request.path)
        return style.json_response(
            ApiError(500, "server_error", "An unexpected error occurred. It has been logged.")
        )
