"""The modules' writes: recently viewed products, bundles, loyalty points, promotion rules,
quote requests, B2B groups and abandoned-cart recovery.

Every write validates first and changes nothing when it refuses; multi-row writes run in one
transaction. The admin writes through these too."""

from __future__ import annotations

import logging
from datetime import timedelta
from decimal import ROUND_DOWN, Decimal

from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils import timezone

from common.links import absolute_url
from store.cart.models import Cart, CartItem
from store.cart.services.lines import cart_lines, upsert_line
from store.cart.services.session import cart_for_update
from store.catalog.choices import ProductStatus
from store.catalog.models import Product
from store.checkout.models import Checkout
from store.common.accounts import logged_in
from store.common.errors import invalid_params, not_found, rule_broken
from store.customers.models import Customer
from store.emails import services as email_services
from store.orders.choices import OrderStatus, PaymentStatus
from store.orders.models import Order
from store.settings import selectors as store_settings
from theme.modules import emails, selectors
from theme.modules.models import (
    Bundle,
    BundleItem,
    CartRecovery,
    CustomerGroup,
    CustomerGroupMember,
    PointsEntry,
    PointsKind,
    Promotion,
    Quote,
    QuoteItem,
    RecentlyViewed,
)

logger = logging.getLogger(__name__)


def _active_products(ids) -> dict[int, Product]:
    ids = set(ids)
    found = Product.objects.filter(pk__in=ids, status=ProductStatus.ACTIVE).in_bulk()
    missing = sorted(ids - set(found))
    if missing:
        raise not_found("product", missing[0])
    return found


def parse_ids(text: str) -> list[int]:
    """Comma-separated ids, each once in the order given, at most THEME_PRODUCT_NAMES_MAX."""
    ids: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isascii() or not part.isdigit() or len(part) > 18 or int(part) < 1:
            raise invalid_params({"ids": ["Use comma-separated product ids."]})
        if int(part) not in ids:
            ids.append(int(part))
    if not ids:
        raise invalid_params({"ids": ["Name at least one product id."]})
    if len(ids) > settings.THEME_PRODUCT_NAMES_MAX:
        raise invalid_params({"ids": [f"At most {settings.THEME_PRODUCT_NAMES_MAX} ids."]})
    return ids


@transaction.atomic
def guest_session() -> Cart:
    """A new guest cart session (its token names a guest's lists)."""
    return cart_for_update(token=None, user=None, create=True)


# --- Recently viewed ----------------------------------------------------------------------------


@transaction.atomic
def recently_viewed_record(*, user, token: str | None, product_id: int) -> RecentlyViewed:
    """Note that the shopper viewed `product_id` (again: it moves to the front); only the
    newest THEME_RECENTLY_VIEWED_MAX are kept."""
    _active_products([product_id])
    user = logged_in(user)
    owner = {"user": user} if user is not None else {"user": None, "session_token": token or ""}
    if user is None and not token:
        raise rule_broken("A cart session is needed to remember products.", code="no_session")
    now = timezone.now()
    row = RecentlyViewed.objects.filter(**owner, product_id=product_id).first()
    if row is None:
        try:
            with transaction.atomic():
                row = RecentlyViewed.objects.create(**owner, product_id=product_id, viewed_at=now)
        except IntegrityError:
            row = RecentlyViewed.objects.get(**owner, product_id=product_id)
    row.viewed_at = now
    row.save(update_fields=["viewed_at"])
    keep = RecentlyViewed.objects.filter(**owner).values_list("pk", flat=True)[
        : settings.THEME_RECENTLY_VIEWED_MAX
    ]
    RecentlyViewed.objects.filter(**owner).exclude(pk__in=list(keep)).delete()
    return row


def recently_viewed_clear(*, user, token: str | None) -> int:
    user = logged_in(user)
    if user is not None:
        rows = RecentlyViewed.objects.filter(user=user)
    elif token:
        rows = RecentlyViewed.objects.filter(user__isnull=True, session_token=token)
    else:
        return 0
    return rows.delete()[0]


# --- Bundles (the admin's) ----------------------------------------------------------------------


BUNDLE_FIELDS = ("title", "slug", "description", "active", "discount_percent")


def bundle_check(*, fields: dict, bundle_id: int | None = None) -> None:
    slug = fields.get("slug")
    if slug is not None and Bundle.objects.filter(slug=slug).exclude(pk=bundle_id).exists():
        raise rule_broken("A bundle with this slug exists.", code="bundle_exists", status=409)
    percent = fields.get("discount_percent")
    if percent is not None and not (0 <= percent <= 100):
        raise invalid_params({"discount_percent": ["Between 0 and 100."]})


@transaction.atomic
def bundle_save(
    *, fields: dict, items: list[dict] | None = None, bundle: Bundle | None = None
) -> Bundle:
    """Create or change a bundle; `items` ({product_id, quantity}), when given, replaces its
    products, all at once."""
    if items is not None:
        if not items:
            raise invalid_params({"items": ["A bundle needs at least one product."]})
        _active_products(item["product_id"] for item in items)
    bundle_check(fields=fields, bundle_id=bundle.pk if bundle else None)
    bundle = bundle or Bundle()
    for name, value in fields.items():
        setattr(bundle, name, value)
    bundle.full_clean()
    bundle.save()
    if items is not None:
        BundleItem.objects.filter(bundle=bundle).delete()
        BundleItem.objects.bulk_create(
            BundleItem(
                bundle=bundle, product_id=item["product_id"], quantity=item.get("quantity", 1)
            )
            for item in items
        )
    return bundle


def bundle_delete(*, bundle: Bundle) -> None:
    bundle.delete()


def bundle_item_check(*, fields: dict, item_id: int | None = None) -> None:
    if "product_id" in fields:
        _active_products([fields["product_id"]])
    bundle_id, product_id = fields.get("bundle_id"), fields.get("product_id")
    if bundle_id and product_id:
        clash = BundleItem.objects.filter(bundle_id=bundle_id, product_id=product_id)
        if clash.exclude(pk=item_id).exists():
            raise rule_broken("This product is in the bundle.", code="bundle_item_exists")


@transaction.atomic
def bundle_item_save(*, fields: dict, item: BundleItem | None = None) -> BundleItem:
    bundle_item_check(fields=fields, item_id=item.pk if item else None)
    item = item or BundleItem()
    for name, value in fields.items():
        setattr(item, name, value)
    item.save()
    return item


def bundle_item_delete(*, item: BundleItem) -> None:
    item.delete()


# --- Points -------------------------------------------------------------------------------------

REFUNDED_PAYMENTS = (PaymentStatus.REFUNDED, PaymentStatus.PARTIALLY_REFUNDED)


def points_for(total: Decimal) -> int:
    return int((total * settings.THEME_POINTS_PER_UNIT).to_integral_value(rounding=ROUND_DOWN))


def points_may_change(order: Order) -> bool:
    """Whether `points_sync` could write anything for the order as it stands: points are
    earned by a paid order of a customer and reversed by a refund, so an order without a
    customer, or neither paid nor refunded, has none to change."""
    if order.customer_id is None:
        return False
    return (
        order.status == OrderStatus.REFUNDED
        or order.payment_status == PaymentStatus.PAID
        or order.payment_status in REFUNDED_PAYMENTS
    )


def points_sync(*, order_id: int) -> PointsEntry | None:
    """Bring an order's points up to date (idempotent; run after the order's commit): a paid
    order of a customer with an account earns points once; a refunded one (in full or in
    part, or moved to refunded) has them reversed once. Answers the entry written, if any."""
    if not selectors.module_active("points"):
        return None
    with transaction.atomic():
        order = Order.objects.select_for_update().filter(pk=order_id).first()
        if order is None or not points_may_change(order):
            return None
        user_id = (
            Customer.objects.filter(pk=order.customer_id).values_list("user_id", flat=True).first()
        )
        if user_id is None:
            return None
        entries = {e.kind: e for e in PointsEntry.objects.filter(order=order)}
        earned = entries.get(PointsKind.EARNED)
        refunded = order.status == OrderStatus.REFUNDED or order.payment_status in REFUNDED_PAYMENTS
        if earned is None:
            if refunded or order.payment_status != PaymentStatus.PAID:
                return None
            if order.status in (OrderStatus.CANCELLED, OrderStatus.FAILED):
                return None
            points = points_for(order.total)
            if points <= 0:
                return None
            return PointsEntry.objects.create(
                user_id=user_id,
                order=order,
                kind=PointsKind.EARNED,
                points=points,
                note=f"Order {order.order_number}",
            )
        if refunded and PointsKind.REVERSED not in entries:
            return PointsEntry.objects.create(
                user_id=earned.user_id,
                order=order,
                kind=PointsKind.REVERSED,
                points=-earned.points,
                note=f"Refund of order {order.order_number}",
            )
    return None


# --- Promotions (the admin's) -------------------------------------------------------------------


def _promotions_changed() -> None:
    selectors.PROMOTIONS.bump()


PROMOTION_FIELDS = (
    "name",
    "description",
    "kind",
    "value",
    "min_subtotal",
    "active",
    "starts_at",
    "ends_at",
    "priority",
)


def promotion_check(*, fields: dict, promotion: Promotion | None = None) -> None:
    def value(name):
        return fields[name] if name in fields else getattr(promotion, name, None)

    starts, ends = value("starts_at"), value("ends_at")
    if starts and ends and ends <= starts:
        raise invalid_params({"ends_at": ["The end must come after the start."]})
    amount = value("value")
    if value("kind") == "percent" and amount is not None and amount > 100:
        raise invalid_params({"value": ["A percentage is at most 100."]})


@transaction.atomic
def promotion_save(*, fields: dict, promotion: Promotion | None = None) -> Promotion:
    promotion_check(fields=fields, promotion=promotion)
    promotion = promotion or Promotion()
    for name, value in fields.items():
        setattr(promotion, name, value)
    promotion.full_clean()
    promotion.save()
    _promotions_changed()
    return promotion


@transaction.atomic
def promotion_delete(*, promotion: Promotion) -> None:
    promotion.delete()
    _promotions_changed()


# --- Quotes -------------------------------------------------------------------------------------


@transaction.atomic
def quote_request(*, user, fields: dict, items: list[dict]) -> Quote:
    """Record a request for quote: the products (active, each once) with their quantities."""
    ids = [item["product_id"] for item in items]
    if len(set(ids)) != len(ids):
        raise invalid_params({"items": ["Name each product once."]})
    _active_products(ids)
    quote = Quote.objects.create(user=logged_in(user), **fields)
    QuoteItem.objects.bulk_create(
        QuoteItem(quote=quote, product_id=item["product_id"], quantity=item["quantity"])
        for item in items
    )
    return quote


@transaction.atomic
def quote_status_set(*, quote_id: int, status: str) -> Quote:
    quote = Quote.objects.select_for_update().filter(pk=quote_id).first()
    if quote is None:
        raise not_found("quote", quote_id)
    quote.status = status
    quote.save(update_fields=["status"])
    return quote


# --- B2B groups ---------------------------------------------------------------------------------


def _groups_changed() -> None:
    selectors.GROUPS.bump()


GROUP_FIELDS = ("name", "description", "discount_percent")


def group_check(*, fields: dict, group_id: int | None = None) -> None:
    name = fields.get("name")
    if name is not None:
        clash = CustomerGroup.objects.filter(name__iexact=name).exclude(pk=group_id)
        if clash.exists():
            raise rule_broken(
                "A group with this name exists.", code="customer_group_exists", status=409
            )


def _group(group_id: int, *, lock: bool = False) -> CustomerGroup:
    rows = CustomerGroup.objects.select_for_update() if lock else CustomerGroup.objects
    group = rows.filter(pk=group_id).first()
    if group is None:
        raise not_found("customer_group", group_id)
    return group


def group_get(*, group_id: int) -> CustomerGroup:
    return _group(group_id)


def _members(user_ids: list[int]) -> list[int]:
    from django.contrib.auth import get_user_model

    found = set(get_user_model().objects.filter(pk__in=user_ids).values_list("pk", flat=True))
    missing = sorted(set(user_ids) - found)
    if missing:
        raise invalid_params({"member_ids": [f"No account with id {missing[0]}."]})
    return sorted(found)


@transaction.atomic
def group_save(
    *, fields: dict, member_ids: list[int] | None = None, group_id: int | None = None
) -> CustomerGroup:
    """Create or change a group; `member_ids` (when given) replaces its members, moving each
    account out of any other group (an account is in at most one)."""
    group = _group(group_id, lock=True) if group_id is not None else CustomerGroup()
    group_check(fields=fields, group_id=group.pk)
    members = _members(member_ids) if member_ids is not None else None
    for key, value in fields.items():
        setattr(group, key, value)
    group.save()
    if members is not None:
        CustomerGroupMember.objects.filter(group=group).exclude(user_id__in=members).delete()
        CustomerGroupMember.objects.filter(user_id__in=members).exclude(group=group).delete()
        have = set(
            CustomerGroupMember.objects.filter(group=group).values_list("user_id", flat=True)
        )
        CustomerGroupMember.objects.bulk_create(
            CustomerGroupMember(group=group, user_id=pk) for pk in members if pk not in have
        )
    _groups_changed()
    return group


@transaction.atomic
def group_delete(*, group_id: int) -> None:
    _group(group_id, lock=True).delete()
    _groups_changed()


# --- Abandoned-cart recovery --------------------------------------------------------------------

RECOVERY_SALT = "theme.modules.recover-cart"
RECOVERY_BATCH = 200


def recovery_token(recovery: CartRecovery) -> str:
    return signing.dumps({"r": recovery.pk, "c": recovery.cart_id}, salt=RECOVERY_SALT)


def recovery_link(recovery: CartRecovery) -> str:
    path = reverse("theme-recover-cart", kwargs={"token": recovery_token(recovery)})
    return absolute_url(path)


def _abandoned(now) -> list[tuple[Cart, str]]:
    """Idle carts with items whose shopper has an address (the account's, else the
    checkout's) and no recovery e-mail for this idle spell; the oldest first, bounded."""
    idle = now - timedelta(hours=settings.THEME_RECOVER_CART_IDLE_HOURS)
    too_old = now - timedelta(hours=settings.THEME_RECOVER_CART_LINK_HOURS)
    has_items = Exists(CartItem.objects.filter(cart=OuterRef("pk")))
    sent = Exists(
        CartRecovery.objects.filter(
            cart=OuterRef("pk"), cart_updated_at__gte=OuterRef("updated_at")
        )
    )
    carts = list(
        Cart.objects.filter(updated_at__lte=idle, updated_at__gt=too_old)
        .filter(has_items)
        .exclude(sent)
        .select_related("user")
        .order_by("updated_at", "pk")[:RECOVERY_BATCH]
    )
    guests = [cart.pk for cart in carts if cart.user_id is None]
    known = dict(
        Checkout.objects.filter(cart_id__in=guests)
        .exclude(email="")
        .order_by("cart_id", "pk")  # the newest checkout's address wins
        .values_list("cart_id", "email")
    )
    out = []
    for cart in carts:
        email = cart.user.email if cart.user_id else known.get(cart.pk, "")
        if email:
            out.append((cart, email))
    return out


def carts_recover_send(*, now=None) -> int:
    """Beat: e-mail each abandoned cart's shopper a link that restores it (once per idle
    spell: a cart changed since gets another when it is idle again). The e-mail leaves after
    the commit, through the store's e-mails. Answers how many were sent."""
    if not selectors.module_active("recover_cart"):
        return 0
    now = now or timezone.now()
    config = store_settings.get_all()
    hours = settings.THEME_RECOVER_CART_LINK_HOURS
    sent = 0
    for cart, email in _abandoned(now):
        with transaction.atomic():
            recovery, _ = CartRecovery.objects.update_or_create(
                cart=cart,
                defaults={
                    "email": email,
                    "cart_updated_at": cart.updated_at,
                    "sent_at": now,
                    "restored_at": None,
                },
            )
            email_services.email_send(
                email_type=emails.CART_RECOVERY,
                to=email,
                context=emails.context(
                    config=config,
                    item_count=sum(item.quantity for item in cart_lines(cart)),
                    link=recovery_link(recovery),
                    lifetime=f"{hours} hours",
                ),
                config=config,
            )
        sent += 1
    return sent


def _recovery_of(token: str) -> CartRecovery:
    try:
        data = signing.loads(
            token, salt=RECOVERY_SALT, max_age=settings.THEME_RECOVER_CART_LINK_HOURS * 3600
        )
    except signing.SignatureExpired:
        raise rule_broken("This cart link has expired.", code="token_expired") from None
    except (signing.BadSignature, ValueError, UnicodeError):
        raise rule_broken("This cart link is not valid.", code="invalid_token") from None
    ok = isinstance(data, dict) and all(isinstance(data.get(k), int) for k in ("r", "c"))
    recovery = (
        CartRecovery.objects.select_related("cart").filter(pk=data["r"], cart_id=data["c"]).first()
        if ok
        else None
    )
    if recovery is None:
        raise rule_broken("This cart's items are no longer kept.", code="cart_gone", status=410)
    return recovery


@transaction.atomic
def cart_recover(*, token: str, session_token: str | None, user=None) -> tuple[Cart, int]:
    """Follow a recovery link: the abandoned cart's lines are put into the visitor's cart (made
    if needed); lines it holds already are left as they are, so following again changes
    nothing. Answers the visitor's cart and how many lines were added."""
    recovery = _recovery_of(token)
    source = recovery.cart
    target = cart_for_update(token=session_token, user=user, create=True)
    added = 0
    if target.pk != source.pk:
        have = set(CartItem.objects.filter(cart=target).values_list("key", flat=True))
        for item in CartItem.objects.filter(cart=source).order_by("pk"):
            if item.key in have:
                continue
            upsert_line(
                cart=target,
                key=item.key,
                product_id=item.product_id,
                variant_id=item.variant_id,
                options=item.options,
                quantity=item.quantity,
            )
            added += 1
        if added:
            Cart.objects.filter(pk=target.pk).update(updated_at=timezone.now())
    CartRecovery.objects.filter(pk=recovery.pk).update(restored_at=timezone.now())
    return target, added
