"""Which cart a request works on, making one when needed, and merging a guest's cart into a
customer's when they log in.

- A guest's cart is found by its token (the `ec_cart_id` cookie, or a `cart_id` hint; see
  store.common.cart_session). A token the server did not issue, or whose cart is gone, finds
  nothing: the next write makes a new cart with a fresh token (a client never chooses its
  token).
- A logged-in customer's cart follows the account: it is found by the user, whatever token
  the request carries. When the request also carries a guest cart's token, that cart is merged
  into the customer's (`cart_merge_on_login`, which the checkout login calls as well).
- A customer's cart is never served to anyone else: a request without that login (a logged-out
  browser still holding the cookie, say) does not find it.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from common.compiled import model_from_row
from store.cart.models import Cart, CartCoupon, CartItem
from store.cart.services.lines import upsert_statement
from store.cart.services.stock import stock_limit
from store.cart.signals import cart_merging
from store.common.accounts import logged_in
from store.common.cart_session import issue_cart_token
from store.settings import selectors as store_settings

logger = logging.getLogger(__name__)


def cart_find(*, token: str | None, user=None) -> Cart | None:
    """The request's cart, or None (merging a carried guest cart into a customer's)."""
    user = logged_in(user)
    if user is not None:
        if token and Cart.objects.filter(token=token, user__isnull=True).exists():
            return cart_merge_on_login(user=user, token=token)
        return Cart.objects.filter(user=user).first()
    if not token:
        return None
    return Cart.objects.filter(token=token, user__isnull=True).first()


def cart_for_update(*, token: str | None, user=None, create: bool = True) -> Cart | None:
    """The request's cart locked for a write (inside the caller's transaction), made if needed.

    Concurrent writes to one cart queue on this lock, so two adds of the same item end as
    one line with both quantities.
    """
    if logged_in(user) is None:  # a guest: find and lock in one query
        locked = Cart.objects.select_for_update()
        cart = locked.filter(token=token, user__isnull=True).first() if token else None
        if cart is None and create:
            cart = _create(user=None)  # inserted by this transaction: no one else sees it
        return cart
    cart = cart_find(token=token, user=user)
    if cart is None:
        if not create:
            return None
        cart = _create(user=logged_in(user))
    return Cart.objects.select_for_update().get(pk=cart.pk)


def cart_lock_touch(*, token: str | None, user=None, line: dict | None = None) -> Cart:
    """The request's cart locked for a write and touched (`updated_at`), made if needed.

    Without a guest cart to merge, the lock and the touch are one UPDATE ... RETURNING (the
    row lock lasts to the end of the caller's transaction); a new cart is simply inserted.
    With a guest token and a login, the merge path of `cart_for_update` is taken.

    `line` (the arguments of lines.upsert_line but the cart): on PostgreSQL, the line is
    upserted by the same statement as the lock, and its quantity now is `cart.line_quantity`;
    where that attribute is absent (another database, or the cart was made or merged here),
    the caller upserts the line itself.
    """
    customer = logged_in(user)
    if customer is not None and token:
        cart = cart_for_update(token=token, user=user)
        touch(cart)
        return cart
    if customer is None and not token:
        return _without_coupons(_create(user=None))
    where = {"user_id": customer.pk} if customer is not None else {"token": token}
    cart = _update_returning(where, line=line)
    if cart is None:
        cart = _create(user=customer)
        if customer is not None:  # a racing request may have made it: lock what exists
            cart = _update_returning(where) or cart
        if cart.token != token and customer is None:
            _without_coupons(cart)
    return cart


def _without_coupons(cart: Cart) -> Cart:
    """Mark a cart known to hold no coupons (`cart.no_coupons`): just made, or found without
    any under its lock. The pricing need not read them."""
    cart.no_coupons = True
    return cart


def _update_returning(where: dict, *, line: dict | None = None) -> Cart | None:
    """Lock and touch the cart matching `where` in one UPDATE ... RETURNING; the same
    statement answers whether it holds coupons (under the row lock, which every coupon change
    takes too), so a cart without any is priced without reading them (`cart.no_coupons`).
    With `line`, on PostgreSQL, the statement also upserts that line (a data-modifying common
    table expression, run on the locked row only) and answers its quantity."""
    meta = Cart._meta
    qn = connection.ops.quote_name
    field = meta.get_field("updated_at")
    params = [field.get_db_prep_save(timezone.now(), connection)]
    conditions = []
    for column, value in where.items():
        conditions.append(f"{qn(column)} = %s")
        params.append(value)
    if "user_id" not in where:
        conditions.append(f"{qn('user_id')} IS NULL")
    table = qn(meta.db_table)
    columns = ", ".join(qn(f.column) for f in meta.concrete_fields)
    links = CartCoupon._meta
    has_coupons = (
        f"EXISTS (SELECT 1 FROM {qn(links.db_table)} "  # noqa: S608
        f"WHERE {qn(links.get_field('cart').column)} = {table}.{qn(meta.pk.column)})"
    )
    # Names are quoted from the models' meta; every value is a parameter.
    sql = (
        f"UPDATE {table} SET {qn(field.column)} = %s "  # noqa: S608
        f"WHERE {' AND '.join(conditions)} RETURNING {columns}, {has_coupons}"
    )
    together = line is not None and connection.vendor == "postgresql"
    if together:
        upsert, upsert_params = upsert_statement(cart=None, cart_from="locked", **line)
        sql = (
            f"WITH {qn('locked')} AS ({sql}), {qn('line')} AS ({upsert}) "  # noqa: S608
            f"SELECT {qn('locked')}.*, (SELECT {qn('quantity')} FROM {qn('line')}) "
            f"FROM {qn('locked')}"
        )
        params += upsert_params
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        return None
    if together:
        *row, quantity = row
    cart = model_from_row(Cart, row[:-1], connection.alias)
    if together:
        cart.line_quantity = quantity
    return cart if row[-1] else _without_coupons(cart)


def _create(*, user) -> Cart:
    if user is None:
        return Cart.objects.create(token=issue_cart_token())
    try:
        with transaction.atomic():
            return Cart.objects.create(token=issue_cart_token(), user=user)
    except IntegrityError:  # a racing request made the customer's cart first
        return Cart.objects.get(user=user)


def touch(cart: Cart) -> None:
    cart.updated_at = timezone.now()
    cart.save(update_fields=["updated_at"])


def cart_stock_held_mark(*, cart: Cart, held: bool) -> None:
    """Record whether the cart's checkout holds stock for it (set by the checkout's holds)."""
    if cart.stock_held != held:
        cart.stock_held = held
        Cart.objects.filter(pk=cart.pk).update(stock_held=held)


@transaction.atomic
def cart_merge_on_login(*, user, token: str | None) -> Cart | None:
    """Merge the guest cart of `token` into `user`'s cart; answer the customer's cart.

    Without a customer cart the guest cart simply becomes theirs. Otherwise each guest line
    joins the same line of the customer's cart (quantities add up, capped at the stock and the
    per-item limit) or is moved over (up to the line limit); the guest's coupons are added
    (re-checked at the next calculation); the guest's shipping address and method, and its VAT
    number, win, being the latest the shopper gave. The guest cart is then deleted.
    Idempotent: a token that names no guest cart leaves everything as it is.
    """
    user = logged_in(user)
    if user is None:
        raise ValueError("cart_merge_on_login needs a logged-in user")
    guest = (
        Cart.objects.select_for_update().filter(token=token, user__isnull=True).first()
        if token
        else None
    )
    own = Cart.objects.select_for_update().filter(user=user).first()
    if guest is None:
        return own
    if own is None:
        try:
            with transaction.atomic():
                guest.user = user
                guest.updated_at = timezone.now()
                guest.save(update_fields=["user", "updated_at"])
            return guest
        except IntegrityError:  # the customer's cart appeared meanwhile: merge into it
            guest.user = None
            own = Cart.objects.select_for_update().get(user=user)
    _merge(guest, own)
    return own


def _merge(guest: Cart, own: Cart) -> None:
    cart_merging.send(sender=Cart, guest=guest, into=own)
    limits = store_settings.get_section("cart")
    existing = {item.key: item for item in own.items.select_for_update()}
    lines = len(existing)
    for item in guest.items.select_related("product", "variant").order_by("created_at", "id"):
        limit = stock_limit(item.product, item.variant)
        caps = [limits["max_quantity"]] + ([limit] if limit is not None else [])
        mine = existing.get(item.key)
        if mine is not None:
            mine.quantity = max(1, min(mine.quantity + item.quantity, *caps))
            mine.save(update_fields=["quantity", "updated_at"])
        elif lines < limits["max_lines"] and (limit is None or limit > 0):
            CartItem.objects.filter(pk=item.pk).update(
                cart=own, quantity=max(1, min(item.quantity, *caps))
            )
            lines += 1
        else:
            logger.info("cart merge: line %s of cart %s dropped", item.key, guest.pk)
    applied = set(own.applied_coupons.values_list("coupon_id", flat=True))
    for link in guest.applied_coupons.order_by("applied_at", "id"):
        if link.coupon_id not in applied:
            CartCoupon.objects.create(cart=own, coupon_id=link.coupon_id)
    if guest.vat_number:  # the latest the shopper gave, as the address
        own.vat_number = guest.vat_number
    if guest.shipping_country:
        own.shipping_country = guest.shipping_country
        own.shipping_region = guest.shipping_region
        own.shipping_postcode = guest.shipping_postcode
        own.shipping_method_id = guest.shipping_method_id or own.shipping_method_id
    own.updated_at = timezone.now()
    own.save()
    guest.delete()
