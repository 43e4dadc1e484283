"""The sandbox registry (development and tests): no network. A number whose format is valid
is valid, except those ending in 0000 (unknown to the registry); those ending in 9999 make it
unavailable (to try the 503 path)."""

from __future__ import annotations

from theme.storefront.vat.base import Result, Unavailable, VatProvider


class SandboxProvider(VatProvider):
    name = "sandbox"

    def check(self, country_code: str, number: str) -> Result:
        if number.endswith("9999"):
            raise Unavailable("the sandbox registry is down for numbers ending in 9999")
        if number.endswith("0000"):
            return Result(valid=False)
        return Result(valid=True, name="Sandbox Trading Ltd", address="1 Test Street, Athens")
