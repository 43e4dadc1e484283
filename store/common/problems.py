"""The problems collector: a write checks every parameter, then refuses once, naming each.

Services add a problem per bad parameter (`problems.add("sale_price", "...")`), optionally with
the refusal's code (the first code given wins over `invalid_param`), and call
`raise_if_any()` before they change anything: 400 with `data.params` naming every one.
"""

from __future__ import annotations

from store.common.errors import invalid_params


class Problems:
    """Collects parameter problems so one refusal names every bad parameter."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}
        self.code = "invalid_param"

    def add(self, name: str, message: str, *, code: str | None = None) -> None:
        self.errors.setdefault(name, []).append(message)
        if code and self.code == "invalid_param":
            self.code = code

    def extend(self, errors: dict[str, list[str]], *, prefix: str = "") -> None:
        """Add the problems of a part (`{"country": [...]}`), named `<prefix>.<name>`."""
        for name, messages in errors.items():
            for message in messages:
                self.add(f"{prefix}.{name}" if prefix else name, message)

    def raise_if_any(self) -> None:
        if self.errors:
            raise invalid_params(self.errors, code=self.code)
