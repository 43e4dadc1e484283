"""The renderer choice without an Accept header (or */*) is decided without parsing; it must
be DRF's own choice (or the JSON fallback for an unusable header)."""

import pytest
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from common.api.negotiation import JSONOnlyContentNegotiation


@pytest.mark.parametrize(
    ("accept", "path"),
    [
        (None, "/x"),
        ("*/*", "/x"),
        ("application/json", "/x"),
        ("application/json; indent=4", "/x"),
        ("text/html", "/x"),
        (None, "/x?format=json"),
    ],
)
@pytest.mark.parametrize("browsable", [False, True])
def test_the_fast_path_chooses_as_drf_does(accept, path, browsable):
    renderers = [JSONRenderer(), *([BrowsableAPIRenderer()] if browsable else [])]
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(path, **headers))
    ours = JSONOnlyContentNegotiation().select_renderer(request, renderers)
    try:
        drf = DefaultContentNegotiation().select_renderer(request, renderers)
    except Exception:  # noqa: BLE001 - NotAcceptable: ours falls back to the first renderer
        drf = (renderers[0], renderers[0].media_type)
    assert (type(ours[0]), ours[1]) == (type(drf[0]), drf[1])
