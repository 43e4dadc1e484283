"""The EU's VIES over its REST API (through common.net, the guarded client).

`POST {base}/check-vat-number` with `{"countryCode": "DE", "vatNumber": "..."}` answers
`{countryCode, vatNumber, requestDate, valid, name, address, ...}`; a member state that does
not disclose the name or address answers "---". Failures answer 4xx/5xx with
`{"actionSucceed": false, "errorWrappers": [{"error": "MS_UNAVAILABLE", ...}]}`: the busy or
unavailable ones (MS_UNAVAILABLE, TIMEOUT, SERVICE_UNAVAILABLE, *_MAX_CONCURRENT_REQ) are
`Unavailable`, anything else `BadAnswer`. Greece is "EL" in VIES. The base URL is
settings.THEME_VAT_VIES_URL. Tested on recorded exchanges (tests/theme/storefront/recordings).
"""

from __future__ import annotations

from django.conf import settings

from common import net
from theme.storefront.vat.base import BadAnswer, Result, Unavailable, VatProvider

BUSY = {
    "MS_UNAVAILABLE",
    "TIMEOUT",
    "SERVICE_UNAVAILABLE",
    "MS_MAX_CONCURRENT_REQ",
    "GLOBAL_MAX_CONCURRENT_REQ",
}


def _text(value) -> str:
    if not isinstance(value, str):
        return ""
    value = " ".join(value.split())
    return "" if value.strip("- ") == "" else value[:500]


class ViesProvider(VatProvider):
    name = "vies"

    def check(self, country_code: str, number: str) -> Result:
        url = settings.THEME_VAT_VIES_URL.rstrip("/") + "/check-vat-number"
        vies_country = "EL" if country_code == "GR" else country_code
        try:
            response = net.request(
                "POST",
                url,
                json={"countryCode": vies_country, "vatNumber": number},
                headers={"Accept": "application/json"},
                timeout=settings.THEME_VAT_HTTP_TIMEOUT,
            )
        except net.OutboundError:
            raise Unavailable("VIES unreachable") from None
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            if response.status_code >= 500 or response.status_code == 429:
                raise Unavailable(f"VIES answered {response.status_code}")
            raise BadAnswer(f"VIES answered {response.status_code} without JSON")
        errors = body.get("errorWrappers")
        if errors or response.status_code >= 400:
            codes = {str(e.get("error")) for e in (errors or []) if isinstance(e, dict)} or {
                str(response.status_code)
            }
            if codes & BUSY or response.status_code >= 500 or response.status_code == 429:
                raise Unavailable(f"VIES: {', '.join(sorted(codes))}")
            raise BadAnswer(f"VIES refused the request: {', '.join(sorted(codes))}")
        valid = body.get("valid")
        if not isinstance(valid, bool):
            raise BadAnswer("VIES answered without `valid`")
        return Result(valid=valid, name=_text(body.get("name")), address=_text(body.get("address")))
