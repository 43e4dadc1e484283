"""The storefront's writes: theme settings, menus (the admin's), wishlists, newsletter
subscriptions (double opt-in) and VAT-number checks.

Every write validates first and changes nothing when it refuses."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.urls import reverse
from django.utils import timezone
from stdnum.eu import vat as eu_vat
from stdnum.exceptions import ValidationError as StdnumError

from common.errors import ServiceError
from common.links import absolute_url
from store.cart.models import Cart
from store.cart.services.session import cart_for_update
from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.params import validate_body
from store.emails import services as email_services
from store.settings import selectors as store_settings
from theme.storefront import emails, selectors, settings_schema, vat
from theme.storefront.models import (
    Menu,
    MenuItem,
    NewsletterSubscription,
    SubscriptionStatus,
    ThemeSettings,
    WishlistItem,
)

logger = logging.getLogger(__name__)

# --- Theme settings -----------------------------------------------------------------------------


def _settings_after_write() -> None:
    selectors.settings_invalidate()
    transaction.on_commit(selectors.settings_invalidate, robust=True)


def theme_settings_check(values) -> dict:
    """The given keys, validated by the declaration; unknown keys or wrong types refuse all."""
    if not isinstance(values, dict):
        raise invalid_params({"body": ["Send a JSON object of setting keys and values."]})
    unknown = sorted(str(key)[:64] for key in set(values) - set(settings_schema.fields()))
    if unknown:
        raise invalid_params(
            {key: ["Unknown theme setting."] for key in unknown}, code="unknown_setting"
        )
    return validate_body(settings_schema.StorefrontSettingsSerializer, values, partial=True)


@transaction.atomic
def theme_settings_update(*, values, user=None, replace: bool = False) -> dict:
    """Set some keys (PATCH), or exactly these keys with the rest back to defaults (PUT)."""
    cleaned = theme_settings_check(values)
    row = ThemeSettings.objects.select_for_update().filter(name=selectors.SETTINGS_NAME).first()
    if row is None:
        row = ThemeSettings(name=selectors.SETTINGS_NAME, values={})
    base = {} if replace else dict(row.values)
    row.values = {**base, **{key: cleaned[key] for key in values}}
    row.updated_by = logged_in(user)
    row.save()
    _settings_after_write()
    return selectors.clean_settings(row.values)


# --- Menus (written by the admin) --------------------------------------------------------------


def _menus_changed() -> None:
    selectors.MENUS.bump()


MENU_FIELDS = ("location", "name")
MENU_ITEM_FIELDS = ("menu", "parent", "label", "url", "position", "open_in_new_tab", "css_class")


def menu_check(*, fields: dict, menu_id: int | None = None) -> None:
    location = fields.get("location")
    if location is not None:
        taken = Menu.objects.filter(location=location).exclude(pk=menu_id).exists()
        if taken:
            raise invalid_params({"location": ["This location has a menu already."]})


@transaction.atomic
def menu_save(*, fields: dict, menu_id: int | None = None) -> Menu:
    menu_check(fields=fields, menu_id=menu_id)
    menu = Menu() if menu_id is None else Menu.objects.select_for_update().get(pk=menu_id)
    for key, value in fields.items():
        setattr(menu, key, value)
    menu.save()
    _menus_changed()
    return menu


@transaction.atomic
def menu_delete(*, menu_id: int) -> None:
    Menu.objects.filter(pk=menu_id).delete()
    _menus_changed()


def _depth(parent: MenuItem | None) -> int:
    depth = 0
    seen = set()
    while parent is not None and parent.pk not in seen:
        seen.add(parent.pk)
        depth += 1
        parent = parent.parent
    return depth


def menu_item_check(*, fields: dict, item_id: int | None = None, menu: Menu | None = None) -> None:
    errors: dict[str, list[str]] = {}
    url = fields.get("url")
    if url is not None and not settings_schema.is_safe_link(url):
        errors["url"] = ["Use an https:// or http:// address, or a /path."]
    parent = fields.get("parent")
    if parent is not None:
        if menu is not None and parent.menu_id != menu.pk:
            errors["parent"] = ["The parent item belongs to another menu."]
        node, seen = parent, set()
        while node is not None and node.pk not in seen:
            if item_id is not None and node.pk == item_id:
                errors["parent"] = ["An item cannot be nested under itself."]
                break
            seen.add(node.pk)
            node = node.parent
        if _depth(parent) >= selectors.MAX_MENU_DEPTH:
            errors["parent"] = [f"Menus nest at most {selectors.MAX_MENU_DEPTH} levels."]
    full = menu is not None and item_id is None and MenuItem.objects.filter(menu=menu).count()
    if full and full >= selectors.MAX_MENU_ITEMS:
        errors["menu"] = [f"A menu holds at most {selectors.MAX_MENU_ITEMS} items."]
    if errors:
        raise invalid_params(errors)


@transaction.atomic
def menu_item_save(*, fields: dict, item_id: int | None = None) -> MenuItem:
    item = MenuItem() if item_id is None else MenuItem.objects.select_for_update().get(pk=item_id)
    menu = fields.get("menu") or (item.menu if item_id is not None else None)
    menu_item_check(fields=fields, item_id=item_id, menu=menu)
    for key, value in fields.items():
        setattr(item, key, value)
    item.save()
    _menus_changed()
    return item


@transaction.atomic
def menu_item_delete(*, item_id: int) -> None:
    MenuItem.objects.filter(pk=item_id).delete()
    _menus_changed()


# --- Wishlist -----------------------------------------------------------------------------------


def _owner(*, user, token) -> dict:
    owner = selectors.owner_filter(user=user, token=token)
    if owner is None:  # the view issues a token before any guest write
        raise rule_broken("A cart session is needed.", code="no_session")
    return owner


@transaction.atomic
def wishlist_add(
    *, user=None, token: str | None = None, product_id: int
) -> tuple[WishlistItem, bool]:
    """Add a product (active ones only; 404 `product_not_found`); answers (item, created).
    Adding one already there changes nothing. 400 `wishlist_full` past the limit."""
    user = logged_in(user)
    wishlist_merge_guest(user=user, token=token)
    product = selectors.active_product(product_id)
    owner = _owner(user=user, token=token)
    existing = WishlistItem.objects.filter(**owner, product=product).first()
    if existing is not None:
        return existing, False
    limit = settings.THEME_WISHLIST_MAX_ITEMS
    # The owner locked (the account's row, or the guest's cart row): concurrent adds to one
    # wishlist queue here, and the count below, a later statement, sees what they committed.
    if user is not None:
        list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    else:
        list(Cart.objects.select_for_update().filter(token=token, user__isnull=True).values("pk"))
    if WishlistItem.objects.filter(**owner).count() >= limit:
        raise rule_broken(f"A wishlist holds at most {limit} products.", code="wishlist_full")
    row = {"user": user} if user is not None else {"session_key": owner["session_key"]}
    try:
        with transaction.atomic():
            return WishlistItem.objects.create(**row, product=product), True
    except IntegrityError:  # a concurrent add of the same product won
        return WishlistItem.objects.get(**owner, product=product), False


@transaction.atomic
def wishlist_remove(*, user=None, token: str | None = None, product_id: int) -> None:
    """404 `wishlist_item_not_found` when the product is not on the wishlist."""
    user = logged_in(user)
    wishlist_merge_guest(user=user, token=token)
    owner = selectors.owner_filter(user=user, token=token)
    deleted = (
        WishlistItem.objects.filter(**owner, product_id=product_id).delete()[0] if owner else 0
    )
    if not deleted:
        raise not_found("wishlist_item", product_id)


@transaction.atomic
def wishlist_clear(*, user=None, token: str | None = None) -> int:
    user = logged_in(user)
    wishlist_merge_guest(user=user, token=token)
    owner = selectors.owner_filter(user=user, token=token)
    return WishlistItem.objects.filter(**owner).delete()[0] if owner else 0


@transaction.atomic
def wishlist_guest_session(*, token: str | None):
    """A guest's cart session for a wishlist write: the token's cart, else a new one (made by
    the cart's own service, so later cart writes keep it). When the token named a cart that
    is gone (purged), its wishlist moves to the new session's key. Answers the cart."""
    cart = cart_for_update(token=token, user=None, create=True)
    old, new = selectors.session_key(token), selectors.session_key(cart.token)
    if old and old != new:
        WishlistItem.objects.filter(user__isnull=True, session_key=old).update(session_key=new)
    return cart


BATCH = 500


def wishlists_purge_stale(*, now=None) -> int:
    """Delete guest wishlists untouched (no product added) for the store's guest cart keep
    time (`cart.guest_cart_days`, as their cart sessions), in batches; answers how many rows.
    Idempotent."""
    now = now or timezone.now()
    days = store_settings.get_section("cart")["guest_cart_days"]
    cutoff = now - timedelta(days=days)
    deleted = 0
    while True:
        keys = list(
            WishlistItem.objects.filter(user__isnull=True)
            .values("session_key")
            .annotate(last=Max("created_at"))
            .filter(last__lt=cutoff)
            .values_list("session_key", flat=True)[:BATCH]
        )
        if not keys:
            return deleted
        with transaction.atomic():
            count, _ = WishlistItem.objects.filter(
                user__isnull=True, session_key__in=keys, created_at__lt=cutoff
            ).delete()
        deleted += count
        if not count:
            return deleted


def wishlist_merge_guest(*, user, token: str | None) -> int:
    """Move the guest wishlist of cart token `token` into `user`'s (at login; also when a
    logged-in request still carries a guest's token). Products already on the user's list
    are dropped from the guest's; the user's list keeps at most the limit (newest guest
    items first). Idempotent: nothing to move changes nothing. Answers how many moved."""
    user = logged_in(user)
    key = selectors.session_key(token)
    if user is None or not key:
        return 0
    with transaction.atomic():
        guest = list(
            WishlistItem.objects.select_for_update()
            .filter(user__isnull=True, session_key=key)
            .order_by("-created_at", "-id")
        )
        if not guest:
            return 0
        mine = set(WishlistItem.objects.filter(user=user).values_list("product_id", flat=True))
        room = max(0, settings.THEME_WISHLIST_MAX_ITEMS - len(mine))
        move = [item.pk for item in guest if item.product_id not in mine][:room]
        WishlistItem.objects.filter(pk__in=move).update(user=user, session_key="")
        WishlistItem.objects.filter(user__isnull=True, session_key=key).delete()
    return len(move)


# --- Newsletter (double opt-in) -----------------------------------------------------------------

CONFIRM_SALT = "theme.storefront.newsletter.confirm"


def _digest(email: str) -> str:
    return hashlib.sha256(email.encode()).hexdigest()[:16]


def confirm_token(subscription: NewsletterSubscription) -> str:
    return signing.dumps(
        {"s": subscription.pk, "e": _digest(subscription.email)}, salt=CONFIRM_SALT, compress=True
    )


def confirm_link(subscription: NewsletterSubscription) -> str:
    """The confirmation e-mail's link: GET /newsletter/confirm/{token}, on FRONTEND_URL."""
    path = reverse("theme-newsletter-confirm", kwargs={"token": confirm_token(subscription)})
    return absolute_url(path)


def normalize_email(email: str) -> str:
    """One row per mailbox: addresses are kept lower-cased (Reader@X and reader@x are one)."""
    return email.strip().lower()


@transaction.atomic
def newsletter_subscribe(*, email: str) -> None:
    """Ask `email` to confirm its subscription. The same outcome whatever the address's
    state (no enumeration): a new or unsubscribed address becomes pending and gets the
    confirmation e-mail; a pending one gets it again at most once per
    THEME_NEWSLETTER_RESEND_SECONDS; a confirmed one gets nothing. The e-mail's link is
    confirm_link(); it leaves after the commit (store e-mails: a task through the outbox)."""
    email = normalize_email(email)
    now = timezone.now()
    try:
        with transaction.atomic():
            subscription, _created = NewsletterSubscription.objects.get_or_create(email=email)
    except IntegrityError:
        subscription = NewsletterSubscription.objects.get(email=email)
    subscription = NewsletterSubscription.objects.select_for_update().get(pk=subscription.pk)
    if subscription.status == SubscriptionStatus.CONFIRMED:
        return
    recent = subscription.confirmation_sent_at is not None and (
        now - subscription.confirmation_sent_at
        < timedelta(seconds=settings.THEME_NEWSLETTER_RESEND_SECONDS)
    )
    if subscription.status == SubscriptionStatus.PENDING and recent:
        return
    subscription.status = SubscriptionStatus.PENDING
    subscription.confirmation_sent_at = now
    subscription.save(update_fields=["status", "confirmation_sent_at"])
    config = store_settings.get_all()
    hours = settings.THEME_NEWSLETTER_CONFIRM_SECONDS // 3600
    email_services.email_send(
        email_type=emails.NEWSLETTER_CONFIRM,
        to=email,
        context=emails.context(
            config=config,
            email=email,
            link=confirm_link(subscription),
            lifetime=f"{hours} hours" if hours else "an hour",
        ),
        config=config,
    )


@transaction.atomic
def newsletter_confirm(*, token: str) -> NewsletterSubscription:
    """Follow a confirmation link: the subscription is confirmed (again: no change). 400
    `invalid_token` for a token that was not issued here or names no subscription, 400
    `token_expired` past THEME_NEWSLETTER_CONFIRM_SECONDS."""
    try:
        data = signing.loads(
            token, salt=CONFIRM_SALT, max_age=settings.THEME_NEWSLETTER_CONFIRM_SECONDS
        )
    except signing.SignatureExpired:
        raise rule_broken("This confirmation link has expired.", code="token_expired") from None
    except (signing.BadSignature, ValueError, UnicodeError):
        raise rule_broken("This confirmation link is not valid.", code="invalid_token") from None
    subscription = (
        NewsletterSubscription.objects.select_for_update().filter(pk=data.get("s")).first()
        if isinstance(data, dict) and isinstance(data.get("s"), int)
        else None
    )
    if subscription is None or _digest(subscription.email) != data.get("e"):
        raise rule_broken("This confirmation link is not valid.", code="invalid_token")
    if subscription.status != SubscriptionStatus.CONFIRMED:
        subscription.status = SubscriptionStatus.CONFIRMED
        subscription.confirmed_at = timezone.now()
        subscription.save(update_fields=["status", "confirmed_at"])
    return subscription


@transaction.atomic
def newsletter_unsubscribe(*, subscription_id: int) -> None:
    """The admin's action: the address gets no newsletter (a new subscribe asks again)."""
    NewsletterSubscription.objects.filter(pk=subscription_id).update(
        status=SubscriptionStatus.UNSUBSCRIBED
    )


# --- VAT numbers --------------------------------------------------------------------------------

VAT_CACHE_PREFIX = "theme:vat:v1"


def _split(vat_number: str, country: str | None) -> tuple[str, str]:
    """(country code, number without prefix), ISO codes (Greece's EL prefix becomes GR)."""
    compact = "".join(c for c in (vat_number or "") if c.isalnum()).upper()
    prefix = compact[:2].upper() if compact[:2].isalpha() else ""
    country = (country or "").upper() or None
    if country == "EL":
        country = "GR"
    if prefix == "EL":
        prefix = "GR"
    if prefix and country and prefix != country:
        raise invalid_params({"country": ["Does not match the number's country prefix."]})
    code = prefix or country
    if not code:
        raise invalid_params({"vat_number": ["Start with the country prefix or send country."]})
    if code.lower() not in eu_vat.MEMBER_STATES:
        raise invalid_params({"country": ["Not an EU member state."]}, code="unsupported_country")
    number = compact[2:] if prefix else compact
    return code, number


class VatServiceDown(ServiceError):
    status_code = 503
    default_code = "vat_service_unavailable"


def vat_validate(*, vat_number: str, country: str | None = None) -> dict:
    """Check a VAT number: its format (python-stdnum) first, then the registry (cached
    THEME_VAT_CACHE_SECONDS, best-effort). 503 `vat_service_unavailable` (Retry-After) while
    the registry cannot be reached, 502 `vat_service_error` when it answers nonsense."""
    code, number = _split(vat_number, country)
    vies_code = "EL" if code == "GR" else code
    now = timezone.now()
    answer = {
        "valid": False,
        "country_code": code,
        "vat_number": f"{vies_code}{number}",
        "name": "",
        "address": "",
        "checked_at": now.isoformat().replace("+00:00", "Z"),
        "source": "format",
    }
    try:
        eu_vat.validate(vies_code + number)
    except StdnumError:
        return answer
    provider = vat.provider_for(code)
    key = f"{VAT_CACHE_PREFIX}:{provider.name}:{code}:{number}"
    cached = cache.get(key)
    if isinstance(cached, dict):
        return cached
    try:
        result = provider.check(code, number)
    except vat.Unavailable as exc:
        logger.warning("VAT registry %s unavailable: %s", provider.name, exc)
        raise VatServiceDown(
            "The VAT registry cannot be reached now; try again later.",
            headers={"Retry-After": "60"},
        ) from None
    except vat.BadAnswer as exc:
        logger.error("VAT registry %s: %s", provider.name, exc)
        raise ServiceError(
            "The VAT registry answered something unexpected.",
            code="vat_service_error",
            status_code=502,
        ) from None
    answer.update(
        valid=result.valid, name=result.name, address=result.address, source=provider.name
    )
    if settings.THEME_VAT_CACHE_SECONDS:
        cache.set(key, answer, settings.THEME_VAT_CACHE_SECONDS)
    return answer
