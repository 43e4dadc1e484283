# ruff: noqa: RUF001 - Greek names and addresses, as the registries answer them
"""/validate-vat: the format first (python-stdnum), then the registry (sandbox in tests; the
AADE and VIES adapters on recorded exchanges, never the network); cached; an unreachable
registry answers 503, a nonsensical one 502, never 500."""

import json
from pathlib import Path

import pytest
import requests
import responses
from django.core.cache import cache

from tests.theme.storefront.conftest import BASE, error, limit
from theme.storefront.vat import aade

pytestmark = pytest.mark.django_db
VAT = f"{BASE}/validate-vat"
RECORDINGS = Path(__file__).parent / "recordings"
VIES = "https://vies.test/rest-api"
AADE = "https://aade.test/wsaade/RgWsPublic2/RgWsPublic2"
KEYS = {"valid", "country_code", "vat_number", "name", "address", "checked_at", "source"}


def recording(name: str) -> bytes:
    return (RECORDINGS / name).read_bytes()


@pytest.fixture
def live(settings):
    settings.THEME_VAT_PROVIDER = "live"
    settings.THEME_VAT_VIES_URL = VIES
    settings.THEME_VAT_AADE_URL = AADE
    settings.THEME_VAT_AADE_USERNAME = ""
    settings.THEME_VAT_AADE_PASSWORD = ""
    return settings


@pytest.fixture
def with_aade(live):
    live.THEME_VAT_AADE_USERNAME = "EMPORIONTEST"
    live.THEME_VAT_AADE_PASSWORD = "s3cret<&>"
    return live


# --- Sandbox and format -------------------------------------------------------------------------


def test_the_sandbox_answers_a_valid_number(anon):
    response = anon.post(VAT, {"vat_number": "EL094014201"}, format="json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == KEYS
    assert body["valid"] is True
    assert body["country_code"] == "GR"
    assert body["vat_number"] == "EL094014201"
    assert body["source"] == "sandbox"
    assert body["name"]
    get = anon.get(VAT, {"vat_number": "094014201", "country": "gr"})
    assert get.json()["valid"] is True


def test_a_bad_format_is_refused_before_any_registry(anon, live):
    with responses.RequestsMock():  # no call is registered: any would fail
        body = anon.post(VAT, {"vat_number": "DE123456789"}, format="json").json()
    assert body["valid"] is False
    assert body["source"] == "format"
    assert body["country_code"] == "DE"


def test_the_sandbox_knows_unknown_and_unavailable_numbers(anon):
    assert anon.get(VAT, {"vat_number": "GR123450000"}).json()["valid"] is False
    response = anon.get(VAT, {"vat_number": "DE100069999"})
    error(response, 503, "vat_service_unavailable")
    assert response["Retry-After"] == "60"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_param"),
        ({"vat_number": ""}, "invalid_param"),
        ({"vat_number": 123456789}, "invalid_param"),
        ({"vat_number": "1" * 40}, "invalid_param"),
        ({"vat_number": "094014201"}, "invalid_param"),  # no country
        ({"vat_number": "DE136695976", "country": "FR"}, "invalid_param"),
        ({"vat_number": "US123456789"}, "unsupported_country"),
        ({"vat_number": "094014201", "country": "U1"}, "invalid_param"),
        ({"vat_number": "EL09<script>"}, "invalid_param"),
        ({"vat_number": "ΕΛ094014201"}, "invalid_param"),
        ({"vat_number": ["EL094014201"]}, "invalid_param"),
    ],
)
def test_bad_requests_are_400(anon, body, code):
    error(anon.post(VAT, body, format="json"), 400, code)


def test_vat_checks_are_rate_limited(anon, settings):
    limit(settings, "vat_validate", "2/min")
    for _ in range(2):
        assert anon.get(VAT, {"vat_number": "EL094014201"}).status_code == 200
    error(anon.get(VAT, {"vat_number": "EL094014201"}), 429)


# --- VIES (recorded) ----------------------------------------------------------------------------


def test_vies_valid_number_and_the_cache(anon, live):
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(
            responses.POST,
            f"{VIES}/check-vat-number",
            body=recording("vies_valid.json"),
            content_type="application/json",
            match=[
                responses.matchers.json_params_matcher(
                    {"countryCode": "DE", "vatNumber": "136695976"}
                )
            ],
        )
        body = anon.post(VAT, {"vat_number": "de 136 695 976"}, format="json").json()
        assert body["valid"] is True
        assert body["source"] == "vies"
        assert body["name"] == ""  # "---": not disclosed
        # cached: the second ask makes no call (the mock would refuse a second one)
        assert anon.post(VAT, {"vat_number": "DE136695976"}, format="json").json() == body
        assert len(mock.calls) == 1


def test_vies_answers_greek_numbers_as_el_when_aade_is_not_configured(anon, live):
    with responses.RequestsMock() as mock:
        mock.add(
            responses.POST,
            f"{VIES}/check-vat-number",
            body=recording("vies_valid_named.json"),
            content_type="application/json",
            match=[
                responses.matchers.json_params_matcher(
                    {"countryCode": "EL", "vatNumber": "094014201"}
                )
            ],
        )
        body = anon.post(VAT, {"vat_number": "GR094014201"}, format="json").json()
    assert body["valid"] is True
    assert body["name"] == "ΕΛΛΗΝΙΚΑ ΤΑΧΥΔΡΟΜΕΙΑ Α.Ε."
    assert body["address"] == "ΑΠΕΛΛΟΥ 1 10559 - ΑΘΗΝΑ"


def test_vies_invalid_number(anon, live):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{VIES}/check-vat-number", body=recording("vies_invalid.json"))
        body = anon.post(VAT, {"vat_number": "FR40303265045"}, format="json").json()
    assert body["valid"] is False
    assert body["source"] == "vies"


@pytest.mark.parametrize(
    ("answer", "status", "code"),
    [
        ({"body": recording("vies_ms_unavailable.json"), "status": 503}, 503, None),
        ({"body": recording("vies_ms_unavailable.json"), "status": 200}, 503, None),
        ({"body": recording("vies_invalid_input.json"), "status": 400}, 502, "vat_service_error"),
        ({"body": b"<html>gateway</html>", "status": 502}, 503, None),
        ({"body": b"<html>nope</html>", "status": 200}, 502, "vat_service_error"),
        ({"body": b'{"valid": "yes"}', "status": 200}, 502, "vat_service_error"),
        ({"body": requests.ConnectionError("down")}, 503, None),
        ({"body": requests.Timeout("slow")}, 503, None),
    ],
)
def test_vies_failures_answer_502_or_503_and_are_not_cached(anon, live, answer, status, code):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{VIES}/check-vat-number", **answer)
        response = anon.post(VAT, {"vat_number": "DE136695976"}, format="json")
    error(response, status, code or "vat_service_unavailable")
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{VIES}/check-vat-number", body=recording("vies_valid.json"))
        assert anon.post(VAT, {"vat_number": "DE136695976"}, format="json").json()["valid"]


def test_the_closed_port_of_the_api_checks_answers_503(anon, live):
    live.THEME_VAT_VIES_URL = "http://127.0.0.1:9"
    live.THEME_VAT_HTTP_TIMEOUT = 2
    error(anon.post(VAT, {"vat_number": "DE136695976"}, format="json"), 503)


# --- AADE (recorded) ----------------------------------------------------------------------------


def test_aade_valid_number_with_name_and_address(anon, with_aade):
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        mock.add(
            responses.POST,
            AADE,
            body=recording("aade_valid.xml"),
            content_type="application/soap+xml",
            match=[
                responses.matchers.header_matcher(
                    {"Content-Type": "application/soap+xml; charset=utf-8"}
                )
            ],
        )
        body = anon.post(VAT, {"vat_number": "EL094014201"}, format="json").json()
        sent = mock.calls[0].request.body
    assert body["valid"] is True
    assert body["source"] == "aade"
    assert body["name"] == "ΕΛΛΗΝΙΚΑ ΤΑΧΥΔΡΟΜΕΙΑ ΑΝΩΝΥΜΗ ΕΤΑΙΡΕΙΑ"
    assert body["address"] == "ΑΠΕΛΛΟΥ 1, 10559 ΑΘΗΝΑ"
    assert b"<ns3:afm_called_for>094014201</ns3:afm_called_for>" in sent
    assert b"<ns1:Username>EMPORIONTEST</ns1:Username>" in sent
    assert b"<ns1:Password>s3cret&lt;&amp;&gt;</ns1:Password>" in sent  # escaped


def test_aade_deactivated_and_unknown_numbers_are_invalid(anon, with_aade):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, AADE, body=recording("aade_deactivated.xml"))
        mock.add(responses.POST, AADE, body=recording("aade_not_found.xml"))
        first = anon.post(VAT, {"vat_number": "EL090000045"}, format="json").json()
        second = anon.post(VAT, {"vat_number": "EL094014201"}, format="json").json()
    assert (first["valid"], first["name"]) == (False, "ΠΑΛΑΙΑ ΕΤΑΙΡΕΙΑ ΕΠΕ")
    assert (second["valid"], second["name"]) == (False, "")


@pytest.mark.parametrize(
    ("answer", "status"),
    [
        ({"body": recording("aade_auth_refused.xml")}, 502),
        ({"body": b"not xml at all", "status": 200}, 502),
        ({"body": b"<a><b/></a>", "status": 200}, 502),
        ({"body": b"busy", "status": 503}, 503),
        (
            {
                "body": b'<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope">'
                b"<env:Body><env:Fault><env:Reason><env:Text>down</env:Text></env:Reason>"
                b"</env:Fault></env:Body></env:Envelope>",
                "status": 500,
            },
            503,
        ),
        ({"body": requests.ConnectionError("down")}, 503),
    ],
)
def test_aade_failures_answer_502_or_503(anon, with_aade, answer, status):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, AADE, **answer)
        error(anon.post(VAT, {"vat_number": "EL094014201"}, format="json"), status)


def test_the_envelope_escapes_the_number_and_credentials():
    sent = aade.envelope("1<2", username="a&b", password="p")
    assert b"1&lt;2" in sent
    assert b"a&amp;b" in sent


def test_results_are_cached_best_effort(anon, live):
    with responses.RequestsMock() as mock:
        mock.add(responses.POST, f"{VIES}/check-vat-number", body=recording("vies_valid.json"))
        anon.post(VAT, {"vat_number": "DE136695976"}, format="json")
    cache.clear()
    with responses.RequestsMock() as mock:  # gone from the cache: asked again
        mock.add(responses.POST, f"{VIES}/check-vat-number", body=recording("vies_invalid.json"))
        assert anon.post(VAT, {"vat_number": "DE136695976"}, format="json").json()["valid"] is False
    assert json.loads(recording("vies_valid.json"))["valid"] is True
