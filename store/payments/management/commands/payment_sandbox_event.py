"""Print a signed sandbox event (and the curl that delivers it) for a payment started here:
what completes a sandbox card intent or bank redirect, as a provider's webhook would."""

from __future__ import annotations

import shlex

from django.core.management.base import BaseCommand, CommandError

from common import links
from common.errors import ServiceError
from store.payments import services
from store.payments.gateways import ONLINE
from store.payments.providers.sandbox import SIGNATURE_HEADER


class Command(BaseCommand):
    help = "Sign a sandbox payment event for a payment started here (intent, redirect)."

    def add_arguments(self, parser):
        parser.add_argument("gateway", choices=sorted(ONLINE))
        parser.add_argument("payment_id", help="The id answered when the payment started.")
        parser.add_argument(
            "--type", default="payment.succeeded", help="payment.succeeded | payment.failed"
        )
        parser.add_argument(
            "--base-url", default=None, help="The site to post to (default: FRONTEND_URL)."
        )

    def handle(self, *args, **options):
        gateway = options["gateway"]
        try:
            body, header = services.sandbox_signed_event(
                gateway_id=gateway, external_id=options["payment_id"], event_type=options["type"]
            )
        except ServiceError as exc:
            raise CommandError(str(exc)) from exc
        route = "payment/callback" if gateway == "bank_redirect" else "webhooks/payment"
        base = (options["base_url"] or links.site_url()).rstrip("/")
        url = f"{base}/rest/ec/v1/{route}/{gateway}"
        self.stdout.write(
            "curl -sS -X POST -H 'Content-Type: application/json' "
            f"-H {shlex.quote(f'{SIGNATURE_HEADER}: {header}')} "
            f"--data {shlex.quote(body.decode())} {url}"
        )
