from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class JSONOnlyContentNegotiation(DefaultContentNegotiation):
    """Never answer 406: when the Accept header matches none of the view's renderers, use the
    first one (JSON for every API view). Parsers are chosen from Content-Type as usual.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        # The common case, decided without parsing: no Accept header (or */*) and no format
        # override picks the first renderer with its own media type, as DRF would (~80 us).
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if (
            accept in ("*/*", "")
            and not format_suffix
            and self.settings.URL_FORMAT_OVERRIDE not in request.query_params
        ):
            return (renderers[0], renderers[0].media_type)
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            renderer = renderers[0]
            return (renderer, renderer.media_type)
