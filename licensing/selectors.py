"""Reads, with the select/prefetch each answer needs (a fixed number of queries per list)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.db import connections, router
from django.db.models import (
    Case,
    CharField,
    F,
    JSONField,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone
from packaging.version import InvalidVersion, Version

from accounts.models import User
from common import pg_json
from common.compiled import CompiledQuery
from common.errors import NotFound
from common.pg_json import IsoUtc, JsonAgg, JsonBuildObject, entry_text
from licensing import domains
from licensing.dates import iso, iso_from_db_text
from licensing.keys import normalize_license_key
from licensing.models import (
    Activation,
    Component,
    License,
    LicenseSource,
    LicenseStatus,
    Pack,
    PackStatus,
    Product,
    Release,
    Tier,
    domain_limit,
    effective_status,
)
from licensing.services.rules import TIER_RANK, license_limit_for, visible_licenses

RENEWAL_WINDOW_DAYS = 30


def _with_relations(rows: QuerySet[License]) -> QuerySet[License]:
    return rows.select_related("product").prefetch_related(
        Prefetch("activations", queryset=Activation.objects.order_by("activated_at", "id"))
    )


def _filtered_licenses(
    *,
    user: User,
    status: str | None = None,
    source: str | None = None,
    search: str | None = None,
    now: datetime | None = None,
) -> QuerySet[License]:
    """The caller's licences matching the list's filters, unordered.

    `search` goes through two subqueries scoped to the caller, each answerable from an index
    (on PostgreSQL the trigram GIN indexes of migration 0003: (owner_id, UPPER(license_key))
    and UPPER(domain)), rather than one OR over a join."""
    rows = visible_licenses(user)
    if status:
        rows = rows.with_effective_status(status, now=now)
    if source:
        rows = rows.filter(source=source)
    search = (search or "").strip()
    if search:
        by_key = visible_licenses(user).filter(license_key__icontains=search).values("pk")
        by_domain = Activation.objects.filter(
            license__in=visible_licenses(user), domain__icontains=search.lower()
        ).values("license_id")
        rows = rows.filter(Q(pk__in=by_key) | Q(pk__in=by_domain))
    return rows


def license_list(
    *,
    user: User,
    status: str | None = None,
    source: str | None = None,
    search: str | None = None,
) -> QuerySet[License]:
    """The caller's licences (its sub-clients' included), newest first. `search` matches a
    licence key or an activated domain, case-insensitively, anywhere in it."""
    rows = _filtered_licenses(user=user, status=status, source=source, search=search)
    return _with_relations(rows.order_by("-created_at", "-id"))


LICENSE_LIST_CHUNK = 1000
_LIST_COLUMNS = (
    "id",
    "license_key",
    "product_id",
    "product__name",
    "product__slug",
    "tier",
    "effective_status",
    "source",
    "expires_text",
    "customer_id",
    "created_text",
)


def _utc_text(field: str) -> Cast:
    """The timestamp as the database's text: UTC (Django's connections run in UTC), read
    without building datetime objects (licensing.api.rows.iso_from_db_text formats it)."""
    return Cast(field, output_field=TextField())


def license_list_entries() -> bool:
    """Whether the licence list reads its entries as JSON text written by the database
    (PostgreSQL, common.pg_json) rather than as _LIST_COLUMNS rows."""
    return pg_json.enabled_for(License)


@functools.cache
def _list_entry():
    """A licence of the list as PostgreSQL writes it: the keys and values of
    licensing.api.rows.license_row (tests/licensing/test_license_list_stream.py compares)."""
    activations = (
        Activation.objects.filter(license_id=OuterRef("pk"))
        .order_by()
        .values("license_id")
        .annotate(
            entries=JsonAgg(
                JsonBuildObject(domain=F("domain"), activated_at=IsoUtc("activated_at")),
                order_by=("activated_at", "id"),
            )
        )
        .values("entries")
    )
    return entry_text(
        JsonBuildObject(
            id=F("id"),
            license_key=F("license_key"),
            product=JsonBuildObject(
                id=F("product_id"), name=F("product__name"), slug=F("product__slug")
            ),
            tier=F("tier"),
            status=F("effective_status"),
            source=F("source"),
            expires_at=IsoUtc("expires_at"),
            activations=Coalesce(
                Subquery(activations, output_field=JSONField()),
                RawSQL("'[]'::json", (), output_field=JSONField()),
            ),
            customer_id=F("customer_id"),
            created_at=IsoUtc("created_at"),
        )
    )


def _list_base(rows: QuerySet, now: datetime) -> QuerySet:
    """The list's annotations (the status as callers see it, the times as text), newest first."""
    return rows.annotate(
        effective_status=Case(
            When(status=LicenseStatus.ACTIVE, expires_at__lte=now, then=Value("expired")),
            default=F("status"),
            output_field=CharField(),
        ),
        expires_text=_utc_text("expires_at"),
        created_text=_utc_text("created_at"),
    ).order_by("-created_at", "-id")


def _after(rows: QuerySet, created_at: datetime, pk: int) -> QuerySet:
    """The keyset: the rows after (created_at, pk) in the list's order."""
    return rows.filter(
        Q(created_at__lte=created_at),  # the index's range; then the tie-break
        Q(created_at__lt=created_at) | Q(created_at=created_at, pk__lt=pk),
    )


_ENTRY_PAGES: dict[tuple[int, bool], CompiledQuery] = {}


def _entry_page_query(size: int, *, keyset: bool) -> CompiledQuery:
    """A chunk of the unfiltered list as entries (PostgreSQL), compiled once per connection:
    arguments (owner id, now) and, after the first chunk, the keyset (created_at, id)."""
    query = _ENTRY_PAGES.get((size, keyset))
    if query is None:

        def build(owner_id, now, *keyset_values):
            rows = _list_base(visible_licenses(User(pk=owner_id)), now)
            rows = rows.annotate(entry=_list_entry())
            if keyset_values:
                rows = _after(rows, *keyset_values)
            return rows.values_list("entry", "created_text", "id")[:size]

        def moment(year: int) -> datetime:
            return datetime(year, 1, 1, tzinfo=UTC)

        sample = (-1, moment(2000), *((moment(2002), -3) if keyset else ()))
        other = (-2, moment(2001), *((moment(2003), -4) if keyset else ()))
        query = _ENTRY_PAGES[(size, keyset)] = CompiledQuery(build, sample, other)
    return query


def _list_queryset(user, status, source, search, now, entries: bool, arrays: bool) -> QuerySet:
    base = _list_base(
        _filtered_licenses(user=user, status=status, source=source, search=search, now=now), now
    )
    if entries:
        return base.annotate(entry=_list_entry())
    if arrays:
        activations = Activation.objects.filter(license_id=OuterRef("pk")).order_by(
            "activated_at", "id"
        )
        return base.annotate(
            act_domains=ArraySubquery(activations.values("domain")),
            act_times=ArraySubquery(activations.values(text=_utc_text("activated_at"))),
        )
    return base


def license_list_chunks(
    *,
    user: User,
    status: str | None = None,
    source: str | None = None,
    search: str | None = None,
    now: datetime | None = None,
    chunk_size: int | None = None,
    entries: bool = False,
) -> Iterator[list[tuple]]:
    """`license_list` as plain rows, newest first, in chunks of `chunk_size` (constant memory
    whatever the count): each chunk is the licences (keyset on created_at, id: no OFFSET, no
    server-side cursor, so it works behind a connection pooler) and their activations, one
    query on PostgreSQL (the activations as arrays), two elsewhere. A row is a tuple of
    _LIST_COLUMNS (the status as callers see it, the times as UTC text) plus the activations,
    oldest first, as two lists: their domains and their activated_at texts. With `entries`
    (PostgreSQL only: license_list_entries()) a row is (its JSON text, created_text, id)."""
    now = now or timezone.now()
    size = chunk_size or LICENSE_LIST_CHUNK
    plain = entries and not status and not source and not (search or "").strip()
    arrays = connections[router.db_for_read(License)].vendor == "postgresql"
    # The unfiltered list (the common call) runs a query compiled once per connection; no
    # queryset is built for it.
    base = None if plain else _list_queryset(user, status, source, search, now, entries, arrays)
    created, pk_at = _LIST_COLUMNS.index("created_text"), 0
    if entries:
        created, pk_at = 1, 2
    after = None
    while True:
        page = base if after is None or plain else _after(base, *after)
        if plain:
            # The unfiltered list, the common call: its SQL compiled once per connection.
            query = _entry_page_query(size, keyset=after is not None)
            rows = [tuple(row) for row in query.rows(user.pk, now, *(after or ()))]
        elif entries:
            rows = list(page.values_list("entry", "created_text", "id")[:size])
        elif arrays:
            # PostgreSQL: the activations come in the same query, as two arrays per licence
            # (ARRAY(SELECT ... ORDER BY ...) keeps the order): one round trip per chunk.
            rows = list(page.values_list(*_LIST_COLUMNS, "act_domains", "act_times")[:size])
        else:
            rows = [(*row, [], []) for row in page.values_list(*_LIST_COLUMNS)[:size]]
            if not rows:
                return
            by_license = {row[0]: row for row in rows}
            # The page again as a subquery (cheap: the same index range) rather than its ids
            # as a thousand parameters.
            for license_id, domain, activated_at in (
                Activation.objects.filter(license_id__in=page.values("pk")[:size])
                .order_by("activated_at", "id")
                .values_list("license_id", "domain", _utc_text("activated_at"))
            ):
                by_license[license_id][-2].append(domain)
                by_license[license_id][-1].append(activated_at)
        if not rows:
            return
        yield rows
        if len(rows) < size:
            return
        # The keyset from the last row's own text (no datetime built for every row).
        last = rows[-1]
        after = (datetime.fromisoformat(iso_from_db_text(last[created])), last[pk_at])


def license_get(*, user: User, license_id: int) -> License:
    license = _with_relations(visible_licenses(user)).filter(pk=license_id).first()
    if license is None:
        raise NotFound("License not found.", code="license_not_found")
    return license


def client_license_list(*, user: User, client_id: int) -> QuerySet[License]:
    from clients.models import Client

    if not Client.objects.filter(owner=user, pk=client_id).exists():
        raise NotFound("Client not found.", code="client_not_found")
    return _with_relations(
        visible_licenses(user).filter(customer_id=client_id).order_by("-created_at", "-id")
    )


def license_usage(*, user: User) -> dict:
    total = License.objects.filter(owner=user).exclude(source=LicenseSource.NFR).count()
    limit = license_limit_for(user)
    return {
        "total_licenses": total,
        "limit": limit,
        "remaining": -1 if limit < 0 else max(limit - total, 0),
    }


def pack_credits(*, user: User, now: datetime | None = None) -> dict:
    """The account's active packs (unlapsed, with credits left) and their total."""
    now = now or timezone.now()
    packs = list(
        Pack.objects.filter(owner=user, status=PackStatus.ACTIVE)
        .filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
        .order_by("purchased_at", "id")
    )
    return {
        "total_credits": sum(pack.remaining for pack in packs),
        "packs": [
            {
                "pack_id": pack.pk,
                "pack_size": pack.size,
                "bundle": pack.bundle,
                "used": pack.used,
                "remaining": pack.remaining,
                "status": pack.status,
            }
            for pack in packs
        ],
    }


def product_list() -> QuerySet[Product]:
    return Product.objects.filter(is_active=True).order_by("name", "id")


def product_tiers(product: Product) -> list[dict]:
    return [
        {
            "tier": tier,
            "yearly_price": product.yearly_price(tier),
            "max_domains": product.max_domains(tier),
        }
        for tier in Tier.values
    ]


def renewal_info(*, user: User, now: datetime | None = None) -> dict:
    """Prices per product and tier, and the caller's licences that expire within 30 days or
    have expired (revoked ones excepted), soonest first."""
    now = now or timezone.now()
    horizon = now + timedelta(days=RENEWAL_WINDOW_DAYS)
    products = list(product_list())
    expiring = (
        visible_licenses(user)
        .filter(status__in=(LicenseStatus.ACTIVE, LicenseStatus.EXPIRED), expires_at__lte=horizon)
        .select_related("product")
        .order_by("expires_at", "id")
    )
    return {
        "currency": settings.LICENSE_CURRENCY,
        "renewal_period": "1 year",
        "window_days": RENEWAL_WINDOW_DAYS,
        "prices": [
            {
                "product_id": product.pk,
                "product_slug": product.slug,
                "product_name": product.name,
                "tier": tier["tier"],
                "yearly_price": tier["yearly_price"],
            }
            for product in products
            for tier in product_tiers(product)
        ],
        "expiring_licenses": [
            {
                "id": license.pk,
                "license_key": license.license_key,
                "product": license.product,
                "tier": license.tier,
                "status": license.effective_status(now),
                "expires_at": license.expires_at,
                "days_left": (license.expires_at - now).days
                if license.expires_at > now
                else -((now - license.expires_at).days),
                "renewal_price": license.product.yearly_price(license.tier),
            }
            for license in expiring
        ],
    }


# --- Public licence API -----------------------------------------------------------------------


def public_license(license_key: str) -> License:
    """The licence an installed copy names by its key (404 when there is none)."""
    key = normalize_license_key(license_key)
    license = (
        License.objects.select_related("product").filter(license_key=key).first() if key else None
    )
    if license is None:
        raise NotFound("No licence with this key.", code="license_not_found")
    return license


def _product_ref(product: Product) -> dict:
    return {"id": product.pk, "name": product.name, "slug": product.slug}


_VERDICT_COLUMNS = (
    "id",
    "status",
    "tier",
    "expires_at",
    "product_id",
    "product__name",
    "product__slug",
    "product__starter_max_domains",
    "product__business_max_domains",
    "activations__domain",
    "activations__is_development",
    "activations__activated_at",
)


# The verdict query: building and compiling the ORM query cost more than running it (about
# 0.5 ms of a verify's 1.3 ms in the selector), and its shape never changes, so it is
# compiled once per connection (common.compiled).
_VERDICT_QUERY = CompiledQuery(
    lambda key: (
        License.objects.filter(license_key=key)
        .order_by("activations__activated_at", "activations__id")
        .values_list(*_VERDICT_COLUMNS)
    ),
    ("SAMPLE-KEY",),
    ("OTHER-KEY",),
)


def _verdict_rows(key: str) -> list[list]:
    """The rows of the licence with `key` (0 or 1 licence x its activations, earliest first)."""
    return _VERDICT_QUERY.rows(key)


def license_verdict(
    *, license_key: str, domain: str, product: str | None = None, now: datetime | None = None
) -> dict:
    """Whether the licence is valid on `domain`, as a JSON-safe verdict to be signed.

    `result` is one of: valid, not_found, product_mismatch, revoked, expired,
    domain_not_activated, too_many_domains (the domain is activated but beyond the tier's
    limit, e.g. after a move from business to starter: the earliest activations keep it).

    The hottest read of the service: one query (the licence, its product and its activations
    joined), no model instances.
    """
    now = now or timezone.now()
    domain = domains.normalize_domain(domain)
    key = normalize_license_key(license_key)
    rows = _verdict_rows(key) if key else []
    verdict = {
        "license_key": key,
        "domain": domain,
        "status": None,
        "tier": None,
        "expires_at": None,
        "product": None,
        "activated_at": None,
        "development_host": domains.is_development_host(domain),
        "issued_at": iso(now),
    }
    expires_at = None
    if not rows:
        result = "not_found"
    else:
        (_id, status, tier, expires_at, product_id, name, slug, starter_max, business_max) = rows[
            0
        ][:9]
        status = effective_status(status, expires_at, now)
        activations = [row[9:] for row in rows if row[9] is not None]
        activation = next((a for a in activations if a[0] == domain), None)
        verdict.update(
            status=status,
            tier=tier,
            expires_at=iso(expires_at),
            product={"id": product_id, "name": name, "slug": slug},
            activated_at=iso(activation[2]) if activation else None,
        )
        limit = domain_limit(tier, starter_max, business_max)
        counted = [a[0] for a in activations if not a[1]]
        if product and product.strip().lower() != slug:
            result = "product_mismatch"
        elif status == LicenseStatus.REVOKED:
            result = "revoked"
        elif status == LicenseStatus.EXPIRED:
            result = "expired"
        elif activation is None:
            result = "domain_not_activated"
        elif not activation[1] and domain not in counted[:limit]:
            result = "too_many_domains"
        else:
            result = "valid"
    valid = result == "valid"
    cache_until = now + timedelta(hours=settings.LICENSE_VERIFY_CACHE_HOURS)
    if valid and expires_at < cache_until:
        cache_until = expires_at
    verdict.update(result=result, valid=valid, valid_until=iso(cache_until))
    return verdict


def latest_release(product: Product) -> Release | None:
    from licensing.versions import latest

    return latest(Release.objects.filter(product=product))


def releases_newer_than(product: Product, installed: Version | None, limit: int = 20) -> list:
    rows = []
    for release in Release.objects.filter(product=product).order_by("-released_at", "-id"):
        try:
            version = Version(release.version)
        except InvalidVersion:
            continue
        if installed is None or version > installed:
            rows.append((version, release))
    rows.sort(key=lambda item: item[0], reverse=True)
    return [release for _version, release in rows[:limit]]


def tier_allows(license_tier: str, min_tier: str) -> bool:
    return TIER_RANK[license_tier] >= TIER_RANK[min_tier]


def component_list(*, license: License) -> list[Component]:
    return list(Component.objects.filter(product=license.product).order_by("name", "id"))


def update_check(*, license: License, installed: str, now: datetime | None = None) -> dict:
    """Is a release newer than the installed version? Answers for any licence that exists;
    `download_allowed` says whether this one may fetch it."""
    from licensing.versions import parse_version

    installed_version = parse_version(installed)
    release = latest_release(license.product)
    newer = release is not None and Version(release.version) > installed_version
    status = license.effective_status(now)
    return {
        "update_available": newer,
        "installed_version": installed.strip(),
        "latest_version": release.version if release else None,
        "released_at": release.released_at if release else None,
        "changelog": release.changelog if newer else None,
        "license_status": status,
        "download_allowed": status == LicenseStatus.ACTIVE,
    }


def update_info(*, license: License, installed: str | None) -> dict:
    from licensing.versions import parse_version

    installed_version = parse_version(installed) if installed else None
    newest = releases_newer_than(license.product, None, limit=1)
    latest = newest[0] if newest else None
    return {
        "product": license.product,
        "latest_version": latest.version if latest else None,
        "released_at": latest.released_at if latest else None,
        "file_size": latest.file_size if latest else None,
        "sha256": latest.sha256 if latest else None,
        "changelog": latest.changelog if latest else None,
        "releases": releases_newer_than(license.product, installed_version),
    }


def component_rows(*, license: License, only_available: bool = False) -> list[dict]:
    """The product's components, each with `available` for the licence's tier."""
    rows = []
    for component in component_list(license=license):
        available = tier_allows(license.tier, component.min_tier)
        if only_available and not available:
            continue
        rows.append(
            {
                "slug": component.slug,
                "name": component.name,
                "description": component.description,
                "version": component.version,
                "min_tier": component.min_tier,
                "available": available,
                "file_size": component.file_size,
                "updated_at": component.updated_at,
            }
        )
    return rows


def component_check(*, license: License, installed: dict[str, str]) -> dict:
    """Installed component versions ({slug: version}) against the latest of each."""
    from licensing.versions import parse_version

    parsed = {
        slug: parse_version(version, field=f"components.{slug}")
        for slug, version in installed.items()
    }
    known = {component.slug: component for component in component_list(license=license)}
    rows = [
        {
            "slug": slug,
            "installed_version": installed[slug],
            "latest_version": known[slug].version,
            "update_available": Version(known[slug].version) > parsed[slug],
            "available": tier_allows(license.tier, known[slug].min_tier),
        }
        for slug in sorted(parsed)
        if slug in known
    ]
    return {"components": rows, "unknown": sorted(set(parsed) - set(known))}
