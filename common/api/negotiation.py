from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class JSONOnlyContentNegotiation(DefaultContentNegotiation):
    """Never answer 406: when the Accept header matches none of the view's renderers, use the
    first one (JSON for every API view). Parsers are chosen from Content-Type as usual.
    """

    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except NotAcceptable:
            renderer = renderers[0]
            return (renderer, renderer.media_type)
