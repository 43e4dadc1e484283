"""Server-rendered pages (the account pages e-mails link to, the order-received page).

They share the API's rate limits (the same scope counts the same client whichever door it
uses) and are never stored by a cache (their links carry secrets). Their Referrer-Policy is
`same-origin`: the address with its token goes to no other site, while the page's own forms
post with the site's Origin and Referer, which CSRF checks (under `no-referrer` a browser posts
`Origin: null`, and CSRF refuses the form).
"""

from __future__ import annotations

import math
from types import SimpleNamespace

from django.http import HttpResponse
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers

from common.api.throttling import ScopedRateThrottle


def wait_for(request, scope: str) -> int | None:
    """Seconds `request` must wait under the `scope` rate limit, or None when it may go on."""
    throttle = ScopedRateThrottle()
    if throttle.allow_request(request, SimpleNamespace(throttle_scope=scope)):
        return None
    return max(1, math.ceil(throttle.wait() or 1))


def page(
    request, template: str, context: dict, *, status: int = 200, retry_after: int | None = None
) -> HttpResponse:
    response = render(request, template, context, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    response["Referrer-Policy"] = "same-origin"
    add_never_cache_headers(response)
    return response


def too_many(request, template: str, context: dict, wait: int) -> HttpResponse:
    message = f"Too many attempts from your network. Try again in {wait} seconds."
    return page(request, template, {**context, "error": message}, status=429, retry_after=wait)
