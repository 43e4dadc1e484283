"""The sandbox payment provider's checkout page: a person presses Pay (or Decline).

Served at /pay/sandbox/<token>, outside the API: it is an HTML page for a browser.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import Http404, HttpResponseRedirect
from django.shortcuts import render
from django.views import View

from licensing.models import SandboxCheckout, SandboxCheckoutStatus
from licensing.payments import sandbox_allowed
from licensing.payments.sandbox import sandbox_complete


class SandboxCheckoutView(View):
    template_name = "licensing/sandbox_checkout.html"

    def dispatch(self, request, *args, **kwargs):
        if not sandbox_allowed():  # no free "payments" on a production server
            raise Http404("The sandbox payment provider is off on this server.")
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, token: str):
        checkout = SandboxCheckout.objects.filter(token=token).first()
        if checkout is None:
            raise Http404("No such checkout.")
        return render(request, self.template_name, {"checkout": checkout})

    def post(self, request, token: str):
        pay = request.POST.get("action") == "pay"
        checkout = sandbox_complete(token=token, pay=pay)
        if checkout is None:
            raise Http404("No such checkout.")
        if checkout.return_url and checkout.status == SandboxCheckoutStatus.PAID:
            query = urlencode(
                {"order_code": checkout.order_code, "transaction_id": checkout.transaction_id}
            )
            separator = "&" if "?" in checkout.return_url else "?"
            return HttpResponseRedirect(checkout.return_url + separator + query)
        return render(request, self.template_name, {"checkout": checkout})
