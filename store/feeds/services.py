"""The feeds' rules: each marketplace's feed settings and secret URL token, the generation
(asked through the outbox, run by the `store_feeds.generate` task), and the category mapping.

Views, admin actions, the task and the beat all call these functions.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import logging
import re
import secrets
import tempfile
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from django_countries import countries

from common import outbox
from common.errors import ServiceError
from store.catalog.models import Category
from store.common.errors import rule_broken
from store.common.problems import Problems
from store.feeds import selectors, validation
from store.feeds.formats import FORMATS, ILLEGAL_XML, SKROUTZ_AVAILABILITY, Context, Writer
from store.feeds.models import CategoryMapping, Feed, FeedFile, FeedStatus, Marketplace
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)

GENERATE_TASK = "store_feeds.generate"
FEED_FIELDS = (
    "enabled",
    "include_out_of_stock",
    "category_ids",
    "shipping_price",
    "shipping_country",
    "availability_in_stock",
    "availability_backorder",
    "availability_out_of_stock",
)
AVAILABILITY_FIELDS = (
    "availability_in_stock",
    "availability_backorder",
    "availability_out_of_stock",
)
# A generation still "running" after this long is taken to have died with its worker.
RUNNING_LEASE = timedelta(minutes=30)
MAPPING_MAX = 10_000
GOOGLE_CATEGORY_ID = re.compile(r"^[1-9][0-9]{0,9}$")


def new_token() -> str:
    return secrets.token_urlsafe(32)


def feed_ensure(marketplace: str) -> Feed:
    """The marketplace's feed row, made with its defaults and a fresh token the first time it
    is asked for (two first asks at once both get the one row)."""
    selectors.marketplace_checked(marketplace)
    feed = selectors.feed_of(marketplace)
    if feed is not None:
        return feed
    try:
        with transaction.atomic():
            return Feed.objects.create(marketplace=marketplace, token=new_token())
    except IntegrityError:
        return Feed.objects.get(marketplace=marketplace)


def feeds_ensure() -> list[Feed]:
    existing = selectors.feeds()
    return [existing.get(m) or feed_ensure(m) for m in selectors.MARKETPLACES]


def token_matches(feed: Feed, token: str | None) -> bool:
    if not token or not isinstance(token, str):
        return False
    return hmac.compare_digest(feed.token.encode(), token.encode("utf-8", "replace"))


# --- Settings ------------------------------------------------------------------------------------


def feed_check(*, marketplace: str, fields: dict) -> dict:
    """The settings in `fields` checked (400 naming each bad one); answers them cleaned."""
    problems = Problems()
    cleaned = {}
    for name, value in fields.items():
        if name not in FEED_FIELDS:
            problems.add(name, "Unknown field.")
            continue
        cleaned[name] = value
    if "category_ids" in cleaned:
        ids = list(dict.fromkeys(cleaned["category_ids"] or []))
        known = set(Category.objects.filter(pk__in=ids).values_list("pk", flat=True))
        unknown = [str(cid) for cid in ids if cid not in known]
        if unknown:
            problems.add("category_ids", f"No categories with ids {', '.join(unknown)}.")
        cleaned["category_ids"] = ids
    country = cleaned.get("shipping_country")
    if country:
        cleaned["shipping_country"] = country = country.upper()
        if country not in countries:
            problems.add("shipping_country", f"{country!r} is not an ISO 3166-1 alpha-2 code.")
    for name in AVAILABILITY_FIELDS:
        value = cleaned.get(name)
        if value is None:
            continue
        if marketplace != Marketplace.SKROUTZ and value:
            problems.add(name, "Only the Skroutz feed words its availability.")
        elif value and value not in SKROUTZ_AVAILABILITY:
            problems.add(name, "Use one of Skroutz's phrases: " + "; ".join(SKROUTZ_AVAILABILITY))
    problems.raise_if_any()
    return cleaned


def feed_update(*, marketplace: str, fields: dict) -> Feed:
    """Change the feed's settings (only those sent); nothing changes on a refusal."""
    feed = feed_ensure(marketplace)
    cleaned = feed_check(marketplace=marketplace, fields=fields)
    with transaction.atomic():
        feed = Feed.objects.select_for_update().get(pk=feed.pk)
        for name, value in cleaned.items():
            setattr(feed, name, value)
        feed.save()
    return feed


def feed_rotate_token(*, marketplace: str) -> Feed:
    """A new secret URL token, in force at once: the old feed URL answers 403 from now on."""
    feed = feed_ensure(marketplace)
    Feed.objects.filter(pk=feed.pk).update(
        token=new_token(), token_rotated_at=timezone.now(), updated_at=timezone.now()
    )
    feed.refresh_from_db()
    return feed


# --- Generation ----------------------------------------------------------------------------------


def generation_request(*, marketplace: str) -> Feed:
    """Ask for the feed to be generated: the task is enqueued after the commit (asks made while
    one waits join it); 409 `feed_disabled` for a feed that is not enabled."""
    feed = feed_ensure(marketplace)
    if not feed.enabled:
        raise rule_broken("Enable the feed before generating it.", code="feed_disabled", status=409)
    with transaction.atomic():
        now = timezone.now()
        update = {"requested_at": now}
        if feed.status != FeedStatus.RUNNING:
            update["status"] = FeedStatus.QUEUED
        Feed.objects.filter(pk=feed.pk).update(**update)
        outbox.enqueue(
            GENERATE_TASK,
            kwargs={"marketplace": marketplace},
            dedupe_key=f"{GENERATE_TASK}:{marketplace}",
        )
    feed.refresh_from_db()
    return feed


def regenerate_due() -> list[str]:
    """The beat's work: ask for every enabled feed never generated, or generated longer ago
    than FEEDS_REGENERATE_MINUTES (and not already waiting). Answers the marketplaces asked."""
    horizon = timezone.now() - timedelta(minutes=settings.FEEDS_REGENERATE_MINUTES)
    asked = []
    for feed in Feed.objects.filter(enabled=True):
        waiting = (
            feed.status == FeedStatus.QUEUED and feed.requested_at and (feed.requested_at > horizon)
        )
        running = (
            feed.status == FeedStatus.RUNNING
            and feed.started_at
            and (feed.started_at > timezone.now() - RUNNING_LEASE)
        )
        if waiting or running:
            continue
        if feed.generated_at is None or feed.generated_at <= horizon:
            generation_request(marketplace=feed.marketplace)
            asked.append(feed.marketplace)
    return asked


def generate(*, marketplace: str) -> Feed:
    """Write the marketplace's feed from the catalog now (the task's work; idempotent: the
    same catalog gives the same bytes and ETag). The feed is checked against its format before
    it replaces the stored one; a failure keeps the previous feed and records the error."""
    feed = feed_ensure(marketplace)
    if not feed.enabled:
        logger.info("feed %s is disabled: not generated", marketplace)
        if feed.status in (FeedStatus.QUEUED, FeedStatus.RUNNING):  # turned off while waiting
            done = FeedStatus.READY if feed.generated_at else FeedStatus.NEVER
            Feed.objects.filter(pk=feed.pk).update(status=done)
            feed.refresh_from_db()
        return feed
    started = timezone.now()
    Feed.objects.filter(pk=feed.pk).update(status=FeedStatus.RUNNING, started_at=started)
    feed.refresh_from_db()
    try:
        content, items, skipped, skipped_count = _render(feed)
        problems = validation.validate(marketplace, content)
        if problems:
            raise ServiceError(
                "The generated feed does not validate: " + "; ".join(problems[:5]),
                code="feed_invalid",
            )
    except Exception as exc:
        logger.exception("feed %s not generated", marketplace)
        Feed.objects.filter(pk=feed.pk).update(
            status=FeedStatus.FAILED, error=ILLEGAL_XML.sub("", str(exc))[:2000]
        )
        feed.refresh_from_db()
        return feed
    etag = hashlib.sha256(FORMATS[marketplace].stable(content)).hexdigest()
    now = timezone.now()
    with transaction.atomic():
        locked = Feed.objects.select_for_update().get(pk=feed.pk)
        current = FeedFile.objects.filter(feed=locked).defer("content", "compressed").first()
        if current is None:
            FeedFile.objects.create(
                feed=locked,
                content=content,
                compressed=gzip.compress(content, mtime=0),
                etag=etag,
                size=len(content),
                modified_at=now,
            )
        elif current.etag != etag:
            FeedFile.objects.filter(pk=current.pk).update(
                content=content,
                compressed=gzip.compress(content, mtime=0),
                etag=etag,
                size=len(content),
                modified_at=now,
            )
        requested_again = locked.requested_at is not None and locked.requested_at > started
        Feed.objects.filter(pk=locked.pk).update(
            status=FeedStatus.QUEUED if requested_again else FeedStatus.READY,
            generated_at=now,
            item_count=items,
            skipped_count=skipped_count,
            skipped=skipped,
            error="",
        )
    feed.refresh_from_db()
    return feed


def _render(feed: Feed) -> tuple[bytes, int, list[dict], int]:
    """The feed's bytes, its item count, the skipped products kept and their whole count."""
    fmt = FORMATS[feed.marketplace]
    config = store_settings.get_all()
    taxonomy = selectors.Taxonomy.load()
    chosen = None
    if feed.category_ids:
        chosen = taxonomy.with_descendants(feed.category_ids)
    ctx = Context(
        feed=feed,
        config=config,
        taxonomy=taxonomy,
        mapping=selectors.mapping_of(feed.marketplace),
        percents={},
    )
    items, skipped, skipped_count = 0, [], 0
    kept = settings.FEEDS_SKIPPED_KEPT
    with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024) as out:
        writer = Writer(out)
        writer.begin()
        fmt.head(writer, ctx)
        for chunk in selectors.catalog_chunks(
            category_ids=chosen, include_out_of_stock=feed.include_out_of_stock
        ):
            missing = {p.feed_tax_class for p in chunk} - set(ctx.percents)
            if missing:
                ctx.percents.update(selectors.tax_percents(config, missing))
            for product in chunk:
                for fields, skip in fmt.entries(product, ctx):
                    if skip is not None:
                        skipped_count += 1
                        if len(skipped) < kept:
                            skipped.append(skip.record())
                        continue
                    fmt.write(writer, fields)
                    items += 1
        fmt.tail(writer)
        writer.finish()
        out.seek(0)
        return out.read(), items, skipped, skipped_count


# --- Category mapping ----------------------------------------------------------------------------


def _mapping_value(marketplace: str, value) -> str:
    """The marketplace category cleaned, or ValueError saying what is wrong."""
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise ValueError("Send the marketplace's category as text.")
    text = str(value).strip()
    if not text:
        raise ValueError("Send a non-empty category.")
    if len(text) > 500:
        raise ValueError("At most 500 characters.")
    if ILLEGAL_XML.search(text) or any(ch in text for ch in "\t\r\n"):
        raise ValueError("Control characters are not allowed.")
    parts = [part.strip() for part in text.split(">")]
    if any(not part for part in parts):
        raise ValueError("A category path is names separated by ' > ', none empty.")
    if marketplace == Marketplace.GOOGLE and text.isdigit() and not GOOGLE_CATEGORY_ID.match(text):
        raise ValueError("A Google product category id is a positive integer.")
    return text if text.isdigit() else " > ".join(parts)


def mapping_check(*, marketplace: str, entries: dict, replace: bool) -> dict[int, str | None]:
    """`entries` ({category id: marketplace category or None}) checked: 400 naming each
    unknown category (`category_not_found`) and each bad value; answers them cleaned."""
    selectors.marketplace_checked(marketplace)
    problems = Problems()
    if len(entries) > MAPPING_MAX:
        problems.add("body", f"At most {MAPPING_MAX} categories at once.")
        problems.raise_if_any()
    cleaned: dict[int, str | None] = {}
    for key, value in entries.items():
        category_id = None
        if isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 18:
            category_id = int(key)
        if not category_id:
            problems.add(str(key)[:50], "Keys are store category ids.")
            continue
        if value is None and not replace:
            cleaned[category_id] = None
            continue
        try:
            cleaned[category_id] = _mapping_value(marketplace, value)
        except ValueError as exc:
            problems.add(key, str(exc))
    known = set(Category.objects.filter(pk__in=list(cleaned)).values_list("pk", flat=True))
    for category_id in cleaned:
        if category_id not in known:
            problems.add(
                str(category_id), f"No category with id {category_id}.", code="category_not_found"
            )
    problems.raise_if_any()
    return cleaned


def mapping_set(*, marketplace: str, entries: dict, replace: bool) -> dict[int, str]:
    """Set the mapping of store categories (ids) to the marketplace's categories: `replace`
    (PUT) makes `entries` the whole mapping; otherwise (PATCH) they are merged, a null value
    removing that category's entry. Unknown categories and bad values are refused (400 naming
    each); nothing changes on a refusal; one transaction."""
    cleaned = mapping_check(marketplace=marketplace, entries=entries, replace=replace)
    with transaction.atomic():
        rows = CategoryMapping.objects.filter(marketplace=marketplace)
        if replace:
            rows.exclude(category_id__in=list(cleaned)).delete()
        removed = [cid for cid, value in cleaned.items() if value is None]
        if removed:
            rows.filter(category_id__in=removed).delete()
        now = timezone.now()
        # One upsert: a concurrent write of the same category updates instead of failing.
        CategoryMapping.objects.bulk_create(
            [
                CategoryMapping(
                    marketplace=marketplace, category_id=cid, value=value, updated_at=now
                )
                for cid, value in cleaned.items()
                if value is not None
            ],
            update_conflicts=True,
            unique_fields=["marketplace", "category"],
            update_fields=["value", "updated_at"],
        )
    return selectors.mapping_of(marketplace)
