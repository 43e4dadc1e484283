"""Demo tax rates for `manage.py seed_demo`: the EU VAT rates the project ships."""

from __future__ import annotations

from store.tax import selectors, services


def seed() -> list[str]:
    report = services.eu_vat_rates_load()
    total = len(report.created) + len(report.updated) + report.unchanged
    return [
        f"  EU VAT rates as of {selectors.eu_vat_table()['as_of']}: {total} rates "
        "(standard and reduced-rate classes; prices are entered without tax)"
    ]
