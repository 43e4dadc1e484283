"""Domains an installed copy runs on.

Normalisation (one way, everywhere): strip blanks, drop a scheme (`https://`), user info,
path, query, fragment and port, drop a trailing dot, lower-case, and encode international
names as IDNA (punycode). `https://Shop.Example.COM:8443/store?x=1` -> `shop.example.com`.
`www.` is kept: `www.example.com` and `example.com` are two domains.

Development hosts activate without counting against the tier's domain limit (as EDD Software
Licensing and Freemius do):
- `localhost`, and IP addresses that are loopback or private (127.0.0.0/8, ::1, 10.0.0.0/8,
  172.16.0.0/12, 192.168.0.0/16, fc00::/7);
- names ending in the reserved top-level domains `.localhost`, `.local`, `.test`, `.example`,
  `.invalid`;
- staging sub-domains: a name whose sub-domain labels (all but the last two) include
  `staging`, `stage`, `dev` or `test`, e.g. `staging.example.com`, `shop.dev.example.com`.
"""

from __future__ import annotations

import ipaddress
import re

from common.errors import ValidationFailed

DEVELOPMENT_TLDS = frozenset({"localhost", "local", "test", "example", "invalid"})
STAGING_LABELS = frozenset({"staging", "stage", "dev", "test"})
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def _invalid(domain_field: str, message: str) -> ValidationFailed:
    return ValidationFailed({domain_field: [message]})


def normalize_domain(raw: str, *, field: str = "domain") -> str:
    """The normalised host of `raw`; 422 naming `field` when there is none."""
    value = (raw or "").strip()
    if not value:
        raise _invalid(field, "This field may not be blank.")
    if len(value) > 2000:
        raise _invalid(field, "Too long to be a domain.")
    if "://" in value:
        value = value.split("://", 1)[1]
    elif value.startswith("//"):
        value = value[2:]
    value = re.split(r"[/?#\\]", value, maxsplit=1)[0]
    value = value.rsplit("@", 1)[-1]
    if value.startswith("["):  # [IPv6]:port
        host = value[1:].split("]", 1)[0]
    elif value.count(":") == 1:
        host = value.split(":", 1)[0]
    else:
        host = value
    host = host.rstrip(".").lower()
    if not host:
        raise _invalid(field, "Enter a domain name such as example.com.")
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        pass
    try:
        host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise _invalid(field, f"{raw!r} is not a valid domain name.") from None
    labels = host.split(".")
    if len(host) > 253 or not all(_LABEL.match(label) for label in labels):
        raise _invalid(field, f"{raw!r} is not a valid domain name.")
    if labels[-1].isdigit():
        raise _invalid(field, f"{raw!r} is not a valid domain name or IP address.")
    return host


def is_development_host(domain: str) -> bool:
    """Whether a normalised domain is a development host (see the module's list)."""
    try:
        address = ipaddress.ip_address(domain)
    except ValueError:
        pass
    else:
        return address.is_loopback or address.is_private
    labels = domain.split(".")
    if domain == "localhost" or labels[-1] in DEVELOPMENT_TLDS:
        return True
    return any(label in STAGING_LABELS for label in labels[:-2])
