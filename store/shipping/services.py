"""Shipping writes: zones (with their regions), their order, and methods (with their settings
checked against the method type's description, store.shipping.types).

Every write checks first and changes nothing when it refuses; the routes, the admin and the
demo data go through these. The zone table the cart reads is cached (selectors.table): every
write drops it (the model signals, and `_changed` for bulk writes that send none).
"""

from __future__ import annotations

import re

from django.db import transaction
from django.db.models import Max

from store.common.errors import invalid_params, rule_broken
from store.common.locations import clean_country, clean_region, country_valid, pattern_problem
from store.shipping import selectors, types
from store.shipping.models import LocationType, MethodType, ShippingMethod, ShippingZone
from store.shipping.models import ShippingZoneLocation as Location

MAX_REGIONS = 1000
_PATTERN_CHARS = re.compile(r"^[A-Z0-9 *.\-]+$")
FALLBACK_EXISTS = "fallback_zone_exists"


def location_clean(*, type: str, code: str) -> str:
    """The code as stored (GR, GR:I, 104*); ValueError saying what is wrong."""
    text = (code or "").strip().upper() if isinstance(code, str) else ""
    if type == LocationType.COUNTRY:
        if not text:
            raise ValueError("Give a country code (ISO 3166-1 alpha-2, e.g. GR).")
        return clean_country(text)
    if type == LocationType.REGION:
        country, _, region = text.replace("-", ":", 1).partition(":")
        if not country_valid(country) or not region:
            raise ValueError("A region is written COUNTRY:REGION, e.g. GR:I or US:CA.")
        return f"{country}:{clean_region(country, region)}"
    if type == LocationType.POSTCODE:
        problem = pattern_problem(text)
        if problem:
            raise ValueError(problem)
        if not _PATTERN_CHARS.match(text):
            raise ValueError(
                "A postcode pattern holds letters, digits, spaces and dashes, with a final * "
                "(104*) or a range LOW...HIGH (10000...19999)."
            )
        low, dots, high = text.partition("...")
        if dots and not (low.isdigit() and high.isdigit()) and low > high:
            raise ValueError("A range starts at its lower end.")
        return text
    raise ValueError(f"Unknown region type {type!r}: country, region or postcode.")


def regions_clean(regions: list[dict]) -> list[tuple[str, str]]:
    """The regions as stored ((type, code), repeats dropped); 400 naming each bad one
    (`regions.<index>.code`)."""
    if len(regions) > MAX_REGIONS:
        raise invalid_params({"regions": f"At most {MAX_REGIONS} regions per zone."})
    out: dict[tuple[str, str], None] = {}
    problems: dict[str, str] = {}
    for index, entry in enumerate(regions):
        try:
            code = location_clean(type=entry["type"], code=entry["code"])
        except ValueError as exc:
            problems[f"regions.{index}.code"] = str(exc)
            continue
        out[(entry["type"], code)] = None
    if problems:
        raise invalid_params(problems)
    return list(out)


def _changed() -> None:
    transaction.on_commit(selectors.invalidate)
    selectors.invalidate()


def zone_check(zone: ShippingZone | None, fields: dict) -> dict:
    """The zone's fields as stored (regions cleaned); the refusal when they cannot be."""
    cleaned = dict(fields)
    if zone is None and not (fields.get("name") or "").strip():
        raise invalid_params({"name": "Required."})
    if "name" in fields:
        cleaned["name"] = (fields["name"] or "").strip()
        if not cleaned["name"]:
            raise invalid_params({"name": "A zone has a name."})
    if "regions" in fields:
        cleaned["regions"] = regions_clean(fields["regions"] or [])
    fallback = cleaned.get("is_fallback", zone.is_fallback if zone is not None else False)
    has_regions = (
        bool(cleaned["regions"])
        if "regions" in cleaned
        else zone is not None and zone.locations.exists()
    )
    if fallback and has_regions:
        raise invalid_params(
            {
                "regions": "The fallback zone (everywhere else) has no regions: it takes every "
                "address no other zone matches."
            }
        )
    if fallback and (zone is None or not zone.is_fallback):
        others = ShippingZone.objects.filter(is_fallback=True)
        if zone is not None:
            others = others.exclude(pk=zone.pk)
        if others.exists():
            raise rule_broken(
                "There is already a fallback zone (everywhere else); there can be one.",
                code=FALLBACK_EXISTS,
                status=409,
            )
    return cleaned


def _set_regions(zone: ShippingZone, regions: list[tuple[str, str]]) -> None:
    Location.objects.filter(zone=zone).delete()
    Location.objects.bulk_create(
        [Location(zone=zone, type=kind, code=code) for kind, code in regions]
    )


@transaction.atomic
def zone_create(*, fields: dict) -> ShippingZone:
    cleaned = zone_check(None, fields)
    regions = cleaned.pop("regions", [])
    if cleaned.get("sort_order") is None:
        last = ShippingZone.objects.aggregate(last=Max("sort_order"))["last"]
        cleaned["sort_order"] = (last or 0) + 1
    zone = ShippingZone.objects.create(**cleaned)
    _set_regions(zone, regions)
    _changed()
    return zone


def _zone_for_update(zone_id: int) -> ShippingZone:
    zone = ShippingZone.objects.select_for_update().filter(pk=zone_id).first()
    if zone is None:
        selectors.zone_get_id(zone_id)  # raises the 404
    return zone


@transaction.atomic
def zone_update(*, zone_id: int, fields: dict) -> ShippingZone:
    zone = _zone_for_update(zone_id)
    cleaned = zone_check(zone, fields)
    regions = cleaned.pop("regions", None)
    for name, value in cleaned.items():
        setattr(zone, name, value)
    zone.save()
    if regions is not None:
        _set_regions(zone, regions)
    _changed()
    return zone


@transaction.atomic
def zone_delete(*, zone_id: int) -> None:
    """The zone goes with its regions and methods (carts that chose one of them choose
    again). Locks the zone, then its methods in id order: a method's deletion takes the same
    locks in the same order (method_delete), so the two never wait on each other."""
    zone = _zone_for_update(zone_id)
    list(ShippingMethod.objects.select_for_update().filter(zone=zone).order_by("pk").values("pk"))
    zone.delete()
    _changed()


@transaction.atomic
def zones_reorder(*, ids: list[int]) -> None:
    """The zones in `ids` take that order (sort_order 1, 2, ...), the zones not named follow
    in their order; one transaction. Every id must be a zone, each named once."""
    seen: set[int] = set()
    repeated = [pk for pk in ids if pk in seen or seen.add(pk)]
    if repeated:
        raise invalid_params({"ids": f"Each zone once; repeated: {sorted(set(repeated))}."})
    zones = list(
        ShippingZone.objects.select_for_update().order_by("is_fallback", "sort_order", "id")
    )
    known = {zone.pk: zone for zone in zones}
    unknown = [pk for pk in ids if pk not in known]
    if unknown:
        raise invalid_params({"ids": f"No shipping zone with id(s) {unknown[:20]}."})
    named = [known[pk] for pk in ids]
    rest = [zone for zone in zones if zone.pk not in seen]
    for position, zone in enumerate([*named, *rest], start=1):
        zone.sort_order = position
    ShippingZone.objects.bulk_update(zones, ["sort_order"])
    _changed()


# --- Methods -------------------------------------------------------------------------------


def method_check(method: ShippingMethod | None, fields: dict) -> dict:
    """The method's columns to write from `fields` (type, title, ..., settings): settings are
    checked against the type's description; sent over the method's own settings when its type
    stays, from the new type's defaults when it changes. 400 naming each problem."""
    cleaned = {k: v for k, v in fields.items() if k != "settings"}
    if method is None:
        missing = [name for name in ("type", "title") if not fields.get(name)]
        if missing:
            raise invalid_params(dict.fromkeys(missing, "Required."))
    if "title" in fields:
        cleaned["title"] = (fields["title"] or "").strip()
        if not cleaned["title"]:
            raise invalid_params({"title": "A method has a title."})
    if "zone_id" in fields:
        selectors.zone_get_id(fields["zone_id"])
    kind = fields.get("type") or method.type
    if kind not in MethodType.values:
        raise invalid_params({"type": f"Unknown method type; one of {', '.join(MethodType)}."})
    sent = fields.get("settings")
    if sent is not None and not isinstance(sent, dict):
        raise invalid_params({"settings": "Must be an object."})
    if method is not None and kind == method.type:
        settings = {**types.settings_of(method), **(sent or {})}
    else:
        settings = {**types.defaults(kind), **(sent or {})}
    if method is None or kind != method.type or sent is not None:
        problems = types.settings_problems(kind, settings)
        if problems:
            raise invalid_params(problems)
        cleaned.update(types.columns_for(kind, settings))
    return cleaned


@transaction.atomic
def method_create(*, zone_id: int, fields: dict) -> ShippingMethod:
    selectors.zone_get_id(zone_id)
    cleaned = method_check(None, {k: v for k, v in fields.items() if k != "zone_id"})
    if cleaned.get("sort_order") is None:
        last = ShippingMethod.objects.filter(zone_id=zone_id).aggregate(last=Max("sort_order"))
        cleaned["sort_order"] = (last["last"] if last["last"] is not None else -1) + 1
    method = ShippingMethod.objects.create(zone_id=zone_id, **cleaned)
    _changed()
    return method


@transaction.atomic
def method_update(*, method_id: int, fields: dict) -> ShippingMethod:
    method = ShippingMethod.objects.select_for_update().filter(pk=method_id).first()
    if method is None:
        selectors.method_get(method_id)  # raises the 404
    cleaned = method_check(method, fields)
    for name, value in cleaned.items():
        setattr(method, name, value)
    method.save()
    _changed()
    return method


@transaction.atomic
def method_delete(*, method_id: int) -> None:
    """Carts that chose it fall back to the first available method. Its zone is locked first,
    as a zone's deletion locks it (zone_delete): one lock order for both."""
    zone_id = ShippingMethod.objects.filter(pk=method_id).values_list("zone_id", flat=True).first()
    if zone_id is not None:
        ShippingZone.objects.select_for_update().filter(pk=zone_id).values("pk").first()
    method = ShippingMethod.objects.select_for_update().filter(pk=method_id).first()
    if method is None:
        selectors.method_get(method_id)
    method.delete()
    _changed()
