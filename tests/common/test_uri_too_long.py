"""A URL longer than MAX_URI_LENGTH (path and query string, as sent) answers 414
`uri_too_long` in its namespace's JSON; gunicorn reads request lines up to its maximum (8190
bytes) so that such URLs reach the application instead of gunicorn's HTML page."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from common.middleware import MAX_URI_LENGTH
from config import gunicorn_conf
from tests.outages.test_database_loss import Gunicorn

pytestmark = pytest.mark.django_db

# Routes of each namespace that read a query string: the portal, the store, the ERP, the theme
# namespace (its product names take a long `ids`) and the core namespace.
ROUTES = [
    "/api/v1/portal/licenses?search=",
    "/rest/ec/v1/products?search=",
    "/rest/ec/v1/invoices?search=",
    "/rest/theme/v1/products/names?ids=",
    "/rest/core/v1/debug/entries?search=",
]


def of_length(route: str, length: int, filler: str = "a") -> str:
    """`route` with its last parameter filled up to `length` characters."""
    missing = length - len(route)
    return route + filler * (missing // len(filler)) + "a" * (missing % len(filler))


def assert_uri_too_long(response, path: str) -> None:
    assert response.status_code == 414, (path[:60], response.status_code, response.content[:200])
    body = response.json()
    if path.startswith("/api/"):
        assert set(body) == {"detail", "code"}, body
        assert str(MAX_URI_LENGTH) in body["detail"]
    else:
        assert set(body) == {"code", "message", "data"}, body
        assert body["data"] == {"status": 414}
        assert str(MAX_URI_LENGTH) in body["message"]
    assert body["code"] == "uri_too_long"


@pytest.mark.parametrize("route", ROUTES)
def test_a_url_over_the_limit_answers_414_in_the_namespace_shape(route):
    client = APIClient()
    at_limit = client.get(of_length(route, MAX_URI_LENGTH))
    assert at_limit.status_code not in (414, 500), at_limit.content[:200]
    path = of_length(route, MAX_URI_LENGTH + 1)
    assert_uri_too_long(client.get(path), path)
    # every method, refused before anything reads the body or the credentials
    assert_uri_too_long(client.post(path, {}, format="json"), path)


def test_the_length_counts_the_url_as_sent():
    """Percent-encoded characters count as sent: `%20` is three."""
    client = APIClient()
    route = "/rest/ec/v1/products?search="
    fits = route + "%20" * ((MAX_URI_LENGTH - len(route)) // 3)
    assert len(fits) <= MAX_URI_LENGTH
    answer = client.get(fits)  # the route's own answer: a search too long
    assert answer.status_code == 400
    assert set(answer.json()["data"]["params"]) == {"search"}
    assert_uri_too_long(client.get(fits + "%20"), route)


def test_a_long_path_answers_414_not_404():
    path = "/rest/ec/v1/" + "a" * MAX_URI_LENGTH
    assert_uri_too_long(APIClient().get(path), path)
    assert APIClient().get(path[:MAX_URI_LENGTH]).status_code == 404


def test_a_long_id_list_gets_the_routes_own_answer():
    """Within the limit, a list too long for the route is refused by the route (400 naming
    the parameter), as it always was, where gunicorn's default used to answer HTML."""
    path = of_length("/rest/theme/v1/products/names?ids=", 6000, filler="12345,")
    response = APIClient().get(path)
    assert response.status_code == 400, response.content[:200]
    assert response.json()["code"] == "invalid_param"
    assert "ids" in response.json()["data"]["params"]


def test_outside_the_apis_nothing_is_refused_for_its_length():
    path = of_length("/healthz?probe=", MAX_URI_LENGTH + 100)
    assert APIClient().get(path).status_code == 200


def test_gunicorn_reads_request_lines_longer_than_the_limit():
    # "GET <url> HTTP/1.1": a URL at the limit fits in the request line with room to spare
    assert gunicorn_conf.limit_request_line == 8190
    assert len(f"DELETE {'a' * MAX_URI_LENGTH} HTTP/1.1") < gunicorn_conf.limit_request_line


def test_through_gunicorn_a_long_url_gets_json(tmp_path):
    names = of_length("/rest/theme/v1/products/names?ids=", 7900, filler="12345,")
    over = of_length("/rest/ec/v1/products?search=", MAX_URI_LENGTH + 100)
    portal_over = of_length("/api/v1/portal/licenses?search=", MAX_URI_LENGTH + 100)
    with Gunicorn(tmp_path) as app:
        within = app.ask("get", names)
        refused = app.ask("get", over)
        portal_refused = app.ask("get", portal_over)
        beyond_gunicorn = app.ask("get", "/rest/ec/v1/products?search=" + "a" * 8200)
    # within gunicorn's limit the application answers, its own 400 here
    assert within["status"] == 400, within
    assert within["body"]["code"] == "invalid_param"
    for answer in (refused, portal_refused):
        assert answer["status"] == 414, answer
        assert answer["content_type"].startswith("application/json"), answer
        assert answer["body"]["code"] == "uri_too_long"
    # past gunicorn's own maximum gunicorn refuses it (a proxy in front usually does first),
    # as JSON too, with the keys of both error shapes (the namespace is not read yet)
    assert beyond_gunicorn["status"] == 414, beyond_gunicorn
    assert beyond_gunicorn["content_type"] == "application/json", beyond_gunicorn
    assert beyond_gunicorn["body"]["code"] == "uri_too_long"
    assert beyond_gunicorn["body"]["data"] == {"status": 414}
    assert "Request Line is too large" in beyond_gunicorn["body"]["detail"]


def test_gunicorn_s_own_refusals_answer_json():
    import socket

    from gunicorn import util

    from common import gunicorn_errors

    assert util.write_error is gunicorn_errors.write_error  # installed by the configuration
    ours, theirs = socket.socketpair()
    with ours, theirs:
        util.write_error(ours, 431, "Request Header Fields Too Large", "Error parsing headers")
        head, _, content = theirs.recv(4096).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
    assert b"Content-Type: application/json" in head
    assert json.loads(content) == {
        "code": "request_header_fields_too_large",
        "message": "Error parsing headers",
        "detail": "Error parsing headers",
        "data": {"status": 431},
    }
