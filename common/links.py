"""Absolute links to this site, built in one place.

Every link that carries a host (in an e-mail, a marketplace feed, an API answer: the order's
page, a feed's address, a download, a payment page, a one-time-token page) is
`absolute_url(path)`: this site's public address, settings.FRONTEND_URL, then the path. The
host and port a request came in on are never used: a link then reads the same whether a
request, a Celery task, the beat or a management command built it, and behind a proxy it names
the public address rather than the internal one.

Which base a link gets:
1. a page the store's settings name explicitly (checkout.order_received_page) is that page:
   an absolute URL as it is, a path on FRONTEND_URL;
2. otherwise FRONTEND_URL, from the environment (`make run` sets it from its HOST and PORT);
3. unset, http://127.0.0.1:8000, the address of `manage.py runserver`.

A link on another site (a CDN's image, a payment provider's page) is answered as it is.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def site_url() -> str:
    """This site's public address (scheme, host, port and any path prefix), without a
    trailing slash."""
    return settings.FRONTEND_URL.rstrip("/")


def absolute_url(path: str) -> str:
    """`path` (a path on this site, with its query: what reverse() answers, plus `?...`) as
    an absolute URL on this site's public address. A URL that names its own host (`https://`,
    `//cdn...`) is answered unchanged."""
    if urlsplit(path).netloc:
        return path
    return f"{site_url()}/{path.lstrip('/')}"


def base_url_problem(url: str) -> str:
    """Why `url` cannot be the base of the site's links ("" when it can): an absolute http(s)
    URL with a host, and no query or fragment (a path prefix is fine)."""
    try:
        parts = urlsplit(url)
        port_ok = parts.port != 0  # .port raises ValueError on a port that is not a number
    except ValueError as exc:
        return f"it is not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "it does not start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    if not port_ok:
        return "its port is 0"
    if parts.query or parts.fragment:
        return "it has a query or a fragment"
    return ""
