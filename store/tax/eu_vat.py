"""The EU VAT rates table: each member state's country-wide standard, reduced and
super-reduced rates, with the date and source of the data (pure functions, no database).

The source is the `eu-vat-rates-data` library pinned in pyproject.toml/uv.lock: the European
Commission's TEDB (Taxes in Europe Database) rates, checked daily by its maintainers and
released when a rate changes. Upgrading it (`uv lock --upgrade-package eu-vat-rates-data`) and
running `manage.py load_eu_vat_rates` brings the store's rates up to date. A rate change
published before the library's next release can be read from a file in the same format (the
dataset JSON of the library's repository, downloaded by hand): `load_eu_vat_rates --file PATH`.

The library lists every rate of a country, special territories' included; the store's
country-wide rates leave out the ones that apply only to a special territory (TERRITORIAL).
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from pathlib import Path

# Rates that apply only in a special territory (they are not the mainland's): the Greek islands
# of the Aegean (17, 4), Madeira and the Azores (22, 16), Jungholz and Mittelberg (19), Corsica
# and the overseas departments (13, 8.5, 1.05, 0.9).
TERRITORIAL: dict[str, frozenset[str]] = {
    "AT": frozenset({"19"}),
    "FR": frozenset({"13", "8.5", "1.05", "0.9"}),
    "GR": frozenset({"17", "4"}),
    "PT": frozenset({"22", "16"}),
}
DESCRIPTION = (
    "VAT rates of the 27 EU member states: the standard rate, the reduced rates (highest "
    "first) and the super-reduced rates, country-wide. Rates of special territories (the "
    "Aegean islands, Madeira and the Azores, Corsica, the overseas departments, Jungholz and "
    "Mittelberg) are left out."
)


class DatasetError(ValueError):
    """The dataset is not in the library's format."""


def _percent(value, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise DatasetError(f"{where}: {value!r} is not a percentage.")
    try:
        percent = Decimal(repr(value) if isinstance(value, float) else str(value))
    except InvalidOperation as exc:
        raise DatasetError(f"{where}: {value!r} is not a percentage.") from exc
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise DatasetError(f"{where}: {value!r} is not a percentage from 0 to 100.")
    return percent.normalize() if percent != percent.to_integral() else percent.quantize(1)


def table_from_dataset(dataset: dict, *, origin: str) -> dict:
    """The store's table from a dataset in the library's format
    (`{version, source, rates: {CC: {country, eu_member, standard, reduced, super_reduced}}}`):
    `{description, source, as_of, countries: [{country, name, standard, reduced,
    super_reduced}]}`, EU members only, sorted by code, percentages as Decimals."""
    if not isinstance(dataset, dict) or not isinstance(dataset.get("rates"), dict):
        raise DatasetError("Expected an object with `version`, `source` and `rates`.")
    countries = []
    for code, entry in sorted(dataset["rates"].items()):
        if not isinstance(entry, dict) or not entry.get("eu_member"):
            continue
        where = str(code)[:10]
        if not (isinstance(code, str) and len(code) == 2 and code.isalpha() and code.isupper()):
            raise DatasetError(f"{where}: not an ISO 3166-1 alpha-2 code.")
        skip = TERRITORIAL.get(code, frozenset())
        standard = _percent(entry.get("standard"), f"{code}.standard")
        raw_reduced = entry.get("reduced") or []
        if not isinstance(raw_reduced, list):
            raise DatasetError(f"{code}.reduced: expected a list.")
        reduced = sorted(
            {
                p
                for p in (_percent(v, f"{code}.reduced") for v in raw_reduced)
                if format(p, "f") not in skip and p < standard
            },
            reverse=True,
        )
        raw_super = entry.get("super_reduced")
        supers = raw_super if isinstance(raw_super, list) else [raw_super]
        super_reduced = sorted(
            {
                p
                for p in (_percent(v, f"{code}.super_reduced") for v in supers if v is not None)
                if format(p, "f") not in skip and p not in reduced and p < standard
            },
            reverse=True,
        )
        countries.append(
            {
                "country": code,
                "name": str(entry.get("country") or code)[:100],
                "standard": standard,
                "reduced": reduced,
                "super_reduced": super_reduced,
            }
        )
    if not countries:
        raise DatasetError("The dataset lists no EU member state.")
    version = str(dataset.get("version") or "")[:40]
    source = str(dataset.get("source") or "unknown")[:200]
    return {
        "description": DESCRIPTION,
        "source": f"{source} ({origin})",
        "as_of": version,
        "countries": countries,
    }


def library_table() -> dict:
    """The table of the pinned `eu-vat-rates-data` library (its data ships inside it: no
    network)."""
    from importlib.metadata import version

    import eu_vat_rates_data

    origin = f"eu-vat-rates-data {version('eu-vat-rates-data')}"
    return table_from_dataset(eu_vat_rates_data.dataset, origin=origin)


def file_table(path: str | Path) -> dict:
    """The table of a dataset file in the library's format (DatasetError when it is not)."""
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"Cannot read {path}: {exc}") from exc
    return table_from_dataset(raw, origin=Path(path).name)
