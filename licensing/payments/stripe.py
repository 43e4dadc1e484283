"""Stripe Checkout, spoken over its REST API through common.net (the guarded client).

- create: `POST /v1/checkout/sessions` (mode=payment, one line item for the whole order,
  `client_reference_id` and `metadata[order_code]` = our order code). The payer returns to
  `success_url`, which carries `transaction_id={CHECKOUT_SESSION_ID}`: the Checkout Session id
  is the transaction id the portal's confirm call receives.
- check: `GET /v1/checkout/sessions/{id}`; paid when `payment_status` is `paid`.

Amounts go to Stripe in the currency's minor unit.
"""

from __future__ import annotations

import logging
from decimal import Decimal
from urllib.parse import quote

import requests

from common import net
from common.money import from_minor_units, to_minor_units
from licensing.payments.base import Checkout, PaymentCheck, ProviderUnavailable

logger = logging.getLogger(__name__)


def _with_query(url: str, query: str) -> str:
    return url + ("&" if "?" in url else "?") + query


class StripeProvider:
    name = "stripe"

    def __init__(self, *, secret_key: str, api_base: str, timeout: int) -> None:
        self.secret_key = secret_key
        self.api_base = api_base.rstrip("/")
        self.timeout = timeout

    def _request(self, method: str, path: str, **kwargs) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.secret_key}", **kwargs.pop("headers", {})}
        try:
            response = net.request(
                method, self.api_base + path, headers=headers, timeout=self.timeout, **kwargs
            )
        except net.OutboundError:  # the detail is in the log (common.net)
            raise ProviderUnavailable(
                "The payment provider could not be reached; nothing was changed. Try again "
                "in a minute."
            ) from None
        if response.status_code >= 500 or response.status_code in (401, 403, 429):
            logger.warning("Stripe %s %s answered %s", method, path, response.status_code)
            raise ProviderUnavailable(
                f"The payment provider answered {response.status_code}; nothing was changed. "
                "Try again later."
            )
        return response

    def create_checkout(
        self,
        *,
        order_code: str,
        description: str,
        amount: Decimal,
        currency: str,
        base_url: str,
        return_url: str,
    ) -> Checkout:
        done = _with_query(return_url, f"order_code={order_code}")
        data = {
            "mode": "payment",
            "client_reference_id": order_code,
            "metadata[order_code]": order_code,
            "line_items[0][quantity]": "1",
            "line_items[0][price_data][currency]": currency.lower(),
            "line_items[0][price_data][unit_amount]": str(to_minor_units(amount, currency)),
            "line_items[0][price_data][product_data][name]": description[:250],
            "success_url": done + "&transaction_id={CHECKOUT_SESSION_ID}",
            "cancel_url": done + "&cancelled=1",
        }
        response = self._request(
            "POST",
            "/v1/checkout/sessions",
            data=data,
            headers={"Idempotency-Key": f"renewal-{order_code}"},
        )
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.status_code != 200 or not body.get("id") or not body.get("url"):
            message = (body.get("error") or {}).get("message") or "no checkout was created"
            raise ProviderUnavailable(f"The payment provider refused the checkout: {message}")
        return Checkout(url=body["url"], reference=body["id"])

    def check_transaction(self, *, transaction_id: str) -> PaymentCheck | None:
        response = self._request("GET", f"/v1/checkout/sessions/{quote(transaction_id, safe='')}")
        if response.status_code in (400, 404):
            return None
        try:
            body = response.json()
            currency = str(body["currency"]).upper()
            amount = (
                from_minor_units(int(body["amount_total"]), currency)
                if body.get("amount_total") is not None
                else None
            )
        except (ValueError, KeyError, TypeError):
            raise ProviderUnavailable(
                "The payment provider's answer could not be read; nothing was changed."
            ) from None
        metadata = body.get("metadata") or {}
        return PaymentCheck(
            transaction_id=str(body.get("id", transaction_id)),
            paid=body.get("payment_status") == "paid",
            amount=amount,
            currency=currency,
            order_code=body.get("client_reference_id") or metadata.get("order_code"),
        )
