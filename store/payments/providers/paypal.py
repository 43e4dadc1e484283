"""PayPal over its REST API through common.net (the guarded client): Orders v2 (create,
capture), capture refunds, and webhook verification by PayPal's verify-webhook-signature call.

Credentials: `client_id`, `client_secret` and `webhook_id` (of the webhook registered in the
PayPal app). The mode picks the host: test is PayPal's sandbox, live the real one.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

import requests
from django.conf import settings

from common import net
from common.jsonload import loads
from common.money import decimal_text as as_text
from store.payments.providers.base import (
    BadSignature,
    Capture,
    CheckResult,
    Event,
    Intent,
    PaymentsNotConfigured,
    ProviderRefused,
    ProviderUnavailable,
    Refund,
)

HOSTS = {"test": "https://api-m.sandbox.paypal.com", "live": "https://api-m.paypal.com"}
EVENT_TYPES = {
    "PAYMENT.CAPTURE.COMPLETED": "payment.succeeded",
    "PAYMENT.CAPTURE.DENIED": "payment.failed",
}
SIGNATURE_HEADERS = {
    "transmission_id": "Paypal-Transmission-Id",
    "transmission_time": "Paypal-Transmission-Time",
    "transmission_sig": "Paypal-Transmission-Sig",
    "cert_url": "Paypal-Cert-Url",
    "auth_algo": "Paypal-Auth-Algo",
}


def _money(amount: Decimal, currency: str) -> dict:
    return {"currency_code": currency.upper(), "value": as_text(amount, currency)}


def _amount(value: dict) -> tuple[Decimal, str]:
    try:
        return Decimal(str(value["value"])), str(value["currency_code"]).upper()
    except (KeyError, TypeError, InvalidOperation) as exc:
        raise ProviderUnavailable("PayPal answered an amount it should not.") from exc


class PayPalProvider:
    name = "paypal"

    def __init__(self, credentials: dict, mode: str = "test") -> None:
        self.client_id = credentials.get("client_id", "")
        self.client_secret = credentials.get("client_secret", "")
        self.webhook_id = credentials.get("webhook_id", "")
        self.host = settings.PAYMENT_PAYPAL_API_BASE or HOSTS.get(mode, HOSTS["test"])

    def _send(self, method: str, path: str, **kwargs) -> requests.Response:
        try:
            return net.request(
                method, self.host + path, timeout=settings.PAYMENT_HTTP_TIMEOUT, **kwargs
            )
        except net.OutboundError:
            raise ProviderUnavailable("PayPal could not be reached.") from None

    def _token_response(self) -> requests.Response:
        if not (self.client_id and self.client_secret):
            raise PaymentsNotConfigured(
                "The PayPal gateway config needs client_id and client_secret: set them with "
                "PATCH /payment/gateway-config/{id}."
            )
        return self._send(
            "POST",
            "/v1/oauth2/token",
            auth=(self.client_id, self.client_secret),
            data={"grant_type": "client_credentials"},
            headers={"Accept": "application/json"},
        )

    def _token(self) -> str:
        answer = self._token_response()
        if answer.status_code != 200:
            raise ProviderRefused(f"PayPal refused the credentials ({answer.status_code}).")
        return self._json(answer)["access_token"]

    @staticmethod
    def _json(answer: requests.Response) -> dict:
        try:
            data = answer.json()
        except ValueError as exc:
            raise ProviderUnavailable(f"PayPal answered {answer.status_code}, not JSON.") from exc
        if not isinstance(data, dict):
            raise ProviderUnavailable("PayPal answered an unexpected body.")
        return data

    def _api(self, method: str, path: str, *, body=None, request_id: str = "") -> dict:
        headers = {"Authorization": f"Bearer {self._token()}", "Content-Type": "application/json"}
        if request_id:
            headers["PayPal-Request-Id"] = request_id[:108]
        answer = self._send(method, path, json=body, headers=headers)
        data = self._json(answer)
        if answer.status_code >= 500:
            raise ProviderUnavailable(f"PayPal answered {answer.status_code}.")
        if answer.status_code >= 400:
            detail = (data.get("details") or [{}])[0].get("issue") or data.get("name", "")
            raise ProviderRefused(
                f"PayPal refused ({answer.status_code} {detail}): {data.get('message', '')}"
            )
        return data

    def create_intent(
        self, *, kind, amount, currency, reference, idempotency_key, return_url=""
    ) -> Intent:
        body: dict[str, Any] = {
            "intent": "CAPTURE",
            "purchase_units": [
                {
                    "reference_id": reference[:256],
                    "custom_id": reference[:127],
                    "amount": {
                        "currency_code": currency.upper(),
                        "value": as_text(amount, currency),
                    },
                }
            ],
        }
        if return_url:
            body["payment_source"] = {
                "paypal": {
                    "experience_context": {"return_url": return_url, "cancel_url": return_url}
                }
            }
        data = self._api("POST", "/v2/checkout/orders", body=body, request_id=idempotency_key)
        links = {link.get("rel"): link.get("href", "") for link in data.get("links", [])}
        return Intent(
            external_id=data["id"],
            status=data.get("status", ""),
            amount=amount,
            currency=currency.upper(),
            redirect_url=links.get("approve") or links.get("payer-action", ""),
        )

    def capture(self, *, external_id, amount, currency) -> Capture:
        data = self._api(
            "POST",
            f"/v2/checkout/orders/{external_id}/capture",
            body={},
            request_id=f"capture-{external_id}",
        )
        try:
            capture = data["purchase_units"][0]["payments"]["captures"][0]
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderUnavailable("PayPal's capture answer has no capture.") from exc
        value, code = _amount(capture.get("amount") or {})
        return Capture(
            transaction_id=capture["id"],
            completed=capture.get("status") == "COMPLETED",
            amount=value,
            currency=code,
            status=capture.get("status", ""),
        )

    def refund(self, *, transaction_id, amount, currency, idempotency_key) -> Refund:
        data = self._api(
            "POST",
            f"/v2/payments/captures/{transaction_id}/refund",
            body={
                "amount": {"value": as_text(amount, currency), "currency_code": currency.upper()}
            },
            request_id=idempotency_key,
        )
        status = data.get("status", "")
        if status in {"CANCELLED", "FAILED"}:
            raise ProviderRefused(f"PayPal refused the refund ({status}).")
        return Refund(
            refund_id=data["id"],
            status="succeeded" if status == "COMPLETED" else "pending",
            amount=amount,
            currency=currency.upper(),
        )

    def verify_event(self, *, body: bytes, headers: Mapping[str, str]) -> Event:
        if not self.webhook_id:
            raise BadSignature("The PayPal gateway config has no webhook_id.")
        values = {name: headers.get(header, "") for name, header in SIGNATURE_HEADERS.items()}
        if not all(values.values()):
            raise BadSignature("PayPal's transmission headers are missing.")
        try:
            event = loads(body)
            event_id, event_type = str(event["id"]), str(event["event_type"])
        except (ValueError, KeyError, TypeError) as exc:
            raise BadSignature("The body is not a PayPal event.") from exc
        answer = self._api(
            "POST",
            "/v1/notifications/verify-webhook-signature",
            body={**values, "webhook_id": self.webhook_id, "webhook_event": event},
        )
        if answer.get("verification_status") != "SUCCESS":
            raise BadSignature("PayPal did not verify the signature.")
        kind = EVENT_TYPES.get(event_type, event_type)
        if not kind.startswith("payment."):
            return Event(id=event_id[:255], type=kind[:100])
        resource = event.get("resource") or {}
        value, code = _amount(resource.get("amount") or {})
        related = (resource.get("supplementary_data") or {}).get("related_ids") or {}
        return Event(
            id=event_id[:255],
            type=kind,
            external_id=str(related.get("order_id", ""))[:100],
            transaction_id=str(resource.get("id", ""))[:100],
            amount=value,
            currency=code,
        )

    def check(self) -> CheckResult:
        answer = self._token_response()
        if answer.status_code >= 500:
            raise ProviderUnavailable(f"PayPal answered {answer.status_code}.")
        if answer.status_code != 200:
            return CheckResult(
                ok=False, message=f"PayPal refused the credentials ({answer.status_code})."
            )
        data = self._json(answer)
        return CheckResult(
            ok=True, message="PayPal accepted the credentials.", account=data.get("app_id", "")
        )
