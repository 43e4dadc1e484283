"""Coupon writes: create, update, delete, and the use ledger the checkout calls.

Uses are counted when an order is placed, atomically. The checkout holds one use of each of
its coupons while it is open (`coupon_uses_reserve`), turns the holds into uses when the order
is placed (`coupon_uses_confirm`) and gives them back when the checkout is abandoned or the
order cancelled (`coupon_uses_release`). Every step locks the coupon rows (in id order, so two
checkouts cannot deadlock) and counts the live uses of the ledger under that lock, so a coupon
limited to one use is used once even by two simultaneous checkouts.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from accounts.models import User
from common.errors import Conflict
from store.catalog.models import Category, Product
from store.common.errors import invalid_params, not_found, rule_broken
from store.common.problems import Problems
from store.coupons import selectors
from store.coupons.models import Coupon, CouponUse, CouponUseStatus, DiscountType
from store.coupons.rules import check_active, refused
from store.coupons.selectors import Customer

DEFAULT_HOLD_MINUTES = 10
_CODE = re.compile(r"^[^\s\x00-\x1f]{1,50}$")
RELATIONS = {
    "product_ids": ("products", Product),
    "excluded_product_ids": ("excluded_products", Product),
    "category_ids": ("categories", Category),
    "excluded_category_ids": ("excluded_categories", Category),
}


# --- Admin CRUD ----------------------------------------------------------------------------------


def normalise_code(code: str) -> str:
    return (code or "").strip()


def _code_taken(code: str, exclude_pk: int | None) -> bool:
    queryset = Coupon.objects.filter(code__iexact=code)
    if exclude_pk:
        queryset = queryset.exclude(pk=exclude_pk)
    return queryset.exists()


def coupon_check_fields(fields: dict, coupon: Coupon | None) -> dict[str, list[int]]:
    """Refuse invalid fields (every problem named at once); answer the related ids to set."""
    problems = Problems()
    current = {
        name: getattr(coupon, name) if coupon is not None else None
        for name in ("discount_type", "amount", "minimum_amount", "maximum_amount")
    }
    merged = {**current, **{k: v for k, v in fields.items() if k in current}}
    if coupon is None:
        merged.setdefault("discount_type", DiscountType.FIXED_CART)
        merged["discount_type"] = merged["discount_type"] or DiscountType.FIXED_CART
        merged["amount"] = merged["amount"] if merged["amount"] is not None else 0
    if "code" in fields:
        code = normalise_code(fields["code"])
        if not _CODE.match(code):
            problems.add("code", "A code has 1 to 50 characters and no spaces.")
        elif _code_taken(code, coupon.pk if coupon else None):
            problems.add(
                "code",
                f"Coupon code {code!r} is taken (codes are matched without regard to case).",
                code="duplicate_coupon_code",
            )
    if merged["discount_type"] == DiscountType.PERCENT and merged["amount"] > 100:
        problems.add("amount", "A percentage is at most 100.")
    low, high = merged["minimum_amount"], merged["maximum_amount"]
    if low is not None and high is not None and low > high:
        problems.add("maximum_amount", "The maximum spend is below the minimum spend.")
    related: dict[str, list[int]] = {}
    for name, (_attr, model) in RELATIONS.items():
        if name not in fields:
            continue
        ids = list(dict.fromkeys(fields[name] or []))
        found = set(model.objects.filter(pk__in=ids).values_list("pk", flat=True))
        missing = [i for i in ids if i not in found]
        if missing:
            label = "products" if model is Product else "categories"
            problems.add(name, f"No {label} with id {', '.join(map(str, missing))}.")
        related[name] = ids
    for include, exclude in (
        ("product_ids", "excluded_product_ids"),
        ("category_ids", "excluded_category_ids"),
    ):
        both = set(related.get(include, [])) & set(related.get(exclude, []))
        if both:
            problems.add(exclude, f"Ids both included and excluded: {sorted(both)}.")
    problems.raise_if_any()
    return related


def _save(coupon: Coupon, fields: dict, related: dict[str, list[int]]) -> Coupon:
    for name, value in fields.items():
        if name in RELATIONS:
            continue
        setattr(coupon, name, normalise_code(value) if name == "code" else value)
    try:
        with transaction.atomic():
            coupon.save()
    except IntegrityError:  # a racing request took the code
        raise rule_broken(
            f"Coupon code {coupon.code!r} is taken.", code="duplicate_coupon_code"
        ) from None
    for name, ids in related.items():
        getattr(coupon, RELATIONS[name][0]).set(ids)
    return coupon


@transaction.atomic
def coupon_create(*, fields: dict) -> Coupon:
    if not normalise_code(fields.get("code", "")):
        raise invalid_params({"code": ["A coupon needs a code."]})
    related = coupon_check_fields(fields, None)
    return _save(Coupon(), fields, related)


@transaction.atomic
def coupon_update(*, coupon_id: int, fields: dict) -> Coupon:
    coupon = Coupon.objects.select_for_update().filter(pk=coupon_id).first()
    if coupon is None:
        raise not_found("coupon", coupon_id)
    related = coupon_check_fields(fields, coupon)
    return _save(coupon, fields, related)


@transaction.atomic
def coupon_delete(*, coupon_id: int) -> None:
    """Delete a coupon that was never used; a used one is kept for the orders' history."""
    coupon = Coupon.objects.select_for_update().filter(pk=coupon_id).first()
    if coupon is None:
        raise not_found("coupon", coupon_id)
    if coupon.uses.exclude(status=CouponUseStatus.RELEASED).exists():
        raise Conflict(
            f"Coupon {coupon.code!r} has been used by orders: disable it instead "
            "(PATCH enabled=false).",
            code="coupon_has_uses",
        )
    coupon.uses.all().delete()
    coupon.delete()


# --- The use ledger (called by the checkout) ------------------------------------------------


def _complete(customer: Customer) -> Customer:
    """An account's e-mail address is recorded with its uses (guest checkouts match it)."""
    if customer.user_id is not None and not customer.email:
        email = User.objects.filter(pk=customer.user_id).values_list("email", flat=True).first()
        return Customer(user_id=customer.user_id, email=(email or "").lower())
    return customer


def _lock(coupon_ids) -> list[Coupon]:
    return list(Coupon.objects.select_for_update().filter(pk__in=coupon_ids).order_by("pk"))


@transaction.atomic
def coupon_uses_reserve(
    *,
    codes: list[str],
    order_reference: str,
    customer: Customer,
    hold_minutes: int = DEFAULT_HOLD_MINUTES,
    now: datetime | None = None,
) -> list[CouponUse]:
    """Hold one use of each coupon for `order_reference` until `hold_minutes` from now.

    All or nothing: a coupon that is unknown, disabled, expired or used up (its held and
    confirmed uses, other than this reference's, reach a limit) refuses the whole call with
    its own code. Calling again for the same reference refreshes its holds and releases the
    holds of codes no longer listed; uses already confirmed stay as they are.
    """
    now = now or timezone.now()
    reference = str(order_reference)
    customer = _complete(customer)
    wanted: dict[int, str] = {}
    for code in codes:
        coupon = Coupon.objects.filter(code__iexact=normalise_code(code)).first()
        if coupon is None:
            raise refused("coupon_not_found", f"Coupon {code!r} does not exist.")
        wanted[coupon.pk] = code
    mine = CouponUse.objects.filter(order_reference=reference)
    locked = _lock(set(wanted) | set(mine.values_list("coupon_id", flat=True)))
    uses = []
    for coupon in (c for c in locked if c.pk in wanted):
        use = mine.filter(coupon=coupon).first()
        if use is not None and use.status == CouponUseStatus.CONFIRMED:
            uses.append(use)
            continue
        check_active(coupon, now=now)
        selectors.check_usage(coupon, customer=customer, exclude_reference=reference, now=now)
        use = use or CouponUse(coupon=coupon, order_reference=reference)
        use.user_id = customer.user_id
        use.email = customer.email
        use.status = CouponUseStatus.HELD
        use.held_until = now + timedelta(minutes=hold_minutes)
        use.released_at = None
        use.save()
        uses.append(use)
    mine.filter(status=CouponUseStatus.HELD).exclude(coupon_id__in=wanted).update(
        status=CouponUseStatus.RELEASED, released_at=now
    )
    return uses


@transaction.atomic
def coupon_uses_confirm(*, order_reference: str, now: datetime | None = None) -> list[CouponUse]:
    """The order is placed: its held uses become uses (counted on the coupon). Idempotent.

    A hold that ran out is confirmed only if the limits still allow it (else the call is
    refused with `coupon_usage_limit_reached` or `coupon_user_usage_limit_reached` and nothing
    changes).
    """
    now = now or timezone.now()
    reference = str(order_reference)
    uses = CouponUse.objects.filter(order_reference=reference)
    coupons = {c.pk: c for c in _lock(set(uses.values_list("coupon_id", flat=True)))}
    out = []
    for use in uses.select_for_update().order_by("coupon_id"):
        if use.status == CouponUseStatus.RELEASED:
            continue
        if use.status == CouponUseStatus.HELD:
            coupon = coupons[use.coupon_id]
            selectors.check_usage(
                coupon,
                customer=Customer(user_id=use.user_id, email=use.email),
                exclude_reference=reference,
                now=now,
            )
            use.status = CouponUseStatus.CONFIRMED
            use.confirmed_at = now
            use.held_until = None
            use.save(update_fields=["status", "confirmed_at", "held_until"])
            Coupon.objects.filter(pk=coupon.pk).update(usage_count=F("usage_count") + 1)
        out.append(use)
    return out


@transaction.atomic
def coupon_uses_release(*, order_reference: str, now: datetime | None = None) -> int:
    """Give back the uses of `order_reference` (checkout abandoned, order cancelled).

    Held uses end; confirmed ones are taken off their coupon's count. Idempotent; answers how
    many uses were released.
    """
    now = now or timezone.now()
    reference = str(order_reference)
    uses = CouponUse.objects.filter(order_reference=reference).exclude(
        status=CouponUseStatus.RELEASED
    )
    _lock(set(uses.values_list("coupon_id", flat=True)))
    released = 0
    for use in uses.select_for_update().order_by("coupon_id"):
        if use.status == CouponUseStatus.CONFIRMED:
            Coupon.objects.filter(pk=use.coupon_id, usage_count__gt=0).update(
                usage_count=F("usage_count") - 1
            )
        use.status = CouponUseStatus.RELEASED
        use.released_at = now
        use.save(update_fields=["status", "released_at"])
        released += 1
    return released


@transaction.atomic
def coupon_uses_restore(*, order_reference: str, now: datetime | None = None) -> int:
    """A cancelled (or refunded, failed) order is reopened: the uses it had confirmed count
    again. Staff reopened it, so the limits are not checked again (as in WooCommerce).
    Idempotent; answers how many uses were restored."""
    now = now or timezone.now()
    reference = str(order_reference)
    uses = CouponUse.objects.filter(
        order_reference=reference, status=CouponUseStatus.RELEASED, confirmed_at__isnull=False
    )
    _lock(set(uses.values_list("coupon_id", flat=True)))
    restored = 0
    for use in uses.select_for_update().order_by("coupon_id"):
        use.status = CouponUseStatus.CONFIRMED
        use.released_at = None
        use.save(update_fields=["status", "released_at"])
        Coupon.objects.filter(pk=use.coupon_id).update(usage_count=F("usage_count") + 1)
        restored += 1
    return restored


def coupon_holds_expire(*, now: datetime | None = None) -> int:
    """Mark the holds that ran out as released (they already stopped counting)."""
    now = now or timezone.now()
    return CouponUse.objects.filter(status=CouponUseStatus.HELD, held_until__lte=now).update(
        status=CouponUseStatus.RELEASED, released_at=now
    )
