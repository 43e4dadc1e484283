"""Greece's taxpayer registry: AADE's public VAT-number (AFM) lookup, the SOAP 1.2 service
RgWsPublic2 (operation `rgWsPublic2AfmMethod`), through common.net (the guarded client) with
xml.etree.

The call carries a WS-Security UsernameToken with the special lookup credentials a business
registers with AADE (settings.THEME_VAT_AADE_USERNAME / _PASSWORD) and asks for
`afm_called_for`. The answer's `error_rec` names a refusal (`error_code`); otherwise
`basic_rec` holds the taxpayer: `onomasia` (name), the postal address, and
`deactivation_flag` (1: active, 2: deactivated). An unknown or malformed AFM is an invalid
number; a refused credential or an unreadable answer is `BadAnswer`; the network, a timeout
or a 5xx is `Unavailable`. The URL is settings.THEME_VAT_AADE_URL. Tested on recorded
exchanges (tests/theme/storefront/recordings).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

from django.conf import settings

from common import net
from theme.storefront.vat.base import BadAnswer, Result, Unavailable, VatProvider

ENVELOPE = """<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" \
xmlns:ns1="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" \
xmlns:ns2="http://rgwspublic2/RgWsPublic2Service" xmlns:ns3="http://rgwspublic2/RgWsPublic2">\
<env:Header><ns1:Security><ns1:UsernameToken><ns1:Username>{username}</ns1:Username>\
<ns1:Password>{password}</ns1:Password></ns1:UsernameToken></ns1:Security></env:Header>\
<env:Body><ns2:rgWsPublic2AfmMethod><ns2:INPUT_REC><ns3:afm_called_by/>\
<ns3:afm_called_for>{afm}</ns3:afm_called_for></ns2:INPUT_REC></ns2:rgWsPublic2AfmMethod>\
</env:Body></env:Envelope>"""

# Error codes that mean "this AFM is not a valid, known number" (an answer, not a failure).
NOT_FOUND = {
    "RG_WS_PUBLIC_WRONG_AFM",
    "RG_WS_PUBLIC_AFM_NOT_FOUND",
    "RG_WS_PUBLIC_EPIT_NF",
}
# Codes that mean our credentials are refused (the operator must fix them).
AUTH = {
    "RG_WS_PUBLIC_TOKEN_USERNAME_NOT_AUTHENTICATED",
    "RG_WS_PUBLIC_TOKEN_USERNAME_NOT_DEFINED",
    "RG_WS_PUBLIC_TOKEN_USERNAME_TOO_SHORT",
    "RG_WS_PUBLIC_TOKEN_AFM_BLOCKED",
    "RG_WS_PUBLIC_TOKEN_AFM_NOT_AUTHORIZED",
}


def envelope(afm: str, *, username: str, password: str) -> bytes:
    return ENVELOPE.format(
        username=escape(username), password=escape(password), afm=escape(afm)
    ).encode()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _find(root: ET.Element, name: str) -> ET.Element | None:
    for element in root.iter():
        if _local(element.tag) == name:
            return element
    return None


def _value(root: ET.Element, name: str) -> str:
    element = _find(root, name)
    return " ".join((element.text or "").split()) if element is not None else ""


class AadeProvider(VatProvider):
    name = "aade"

    def check(self, country_code: str, number: str) -> Result:
        username = settings.THEME_VAT_AADE_USERNAME
        password = settings.THEME_VAT_AADE_PASSWORD
        if not username or not password:
            raise BadAnswer("AADE lookup credentials are not configured")
        try:
            response = net.request(
                "POST",
                settings.THEME_VAT_AADE_URL,
                data=envelope(number, username=username, password=password),
                headers={"Content-Type": "application/soap+xml; charset=utf-8"},
                timeout=settings.THEME_VAT_HTTP_TIMEOUT,
            )
        except net.OutboundError:
            raise Unavailable("AADE unreachable") from None
        if response.status_code >= 500 and b"Envelope" not in response.content[:2000]:
            raise Unavailable(f"AADE answered {response.status_code}")
        if response.status_code == 429:
            raise Unavailable("AADE answered 429")
        try:
            root = ET.fromstring(response.content)  # noqa: S314 - expat resolves no entities
        except ET.ParseError:
            raise BadAnswer(f"AADE answered {response.status_code}, not XML") from None
        if _find(root, "Fault") is not None:
            raise Unavailable(
                f"AADE SOAP fault: {_value(root, 'Text') or _value(root, 'faultstring')}"
            )
        code = _value(root, "error_code")
        if code:
            if code in NOT_FOUND:
                return Result(valid=False)
            if code in AUTH:
                raise BadAnswer(f"AADE refused the credentials: {code}")
            raise Unavailable(f"AADE error {code}")
        record = _find(root, "basic_rec")
        if record is None:
            raise BadAnswer("AADE answered without basic_rec")
        street = " ".join(
            filter(None, [_value(record, "postal_address"), _value(record, "postal_address_no")])
        )
        place = " ".join(
            filter(
                None, [_value(record, "postal_zip_code"), _value(record, "postal_area_description")]
            )
        )
        return Result(
            valid=_value(record, "deactivation_flag") == "1",
            name=_value(record, "onomasia")[:500],
            address=", ".join(filter(None, [street, place]))[:500],
        )
