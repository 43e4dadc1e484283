"""The cart's lines in the database: one read of them all (with what pricing needs) and the
one-statement upsert of a line (the add path)."""

from __future__ import annotations

from django.db import connection
from django.utils import timezone

from common.compiled import CompiledQuery
from store.cart.models import Cart, CartItem

# Read on every cart request: compiled once per connection (common.compiled).
_LINES = CompiledQuery(
    lambda cart_id: (
        CartItem.objects.filter(cart_id=cart_id)
        .select_related(
            "product__featured_image", "product__tax_class_link__tax_class", "variant__image"
        )
        # a cart never shows these: the long text and the search vector stay in the database
        .defer("product__description", "product__search_document")
        .order_by("created_at", "id")
    ),
    (-1,),
    (-2,),
)


def cart_lines(cart: Cart) -> list[CartItem]:
    """Every line of `cart` with its product (featured image, tax class) and variant (image),
    in the cart's order: one query."""
    return _LINES.instances(cart.pk)


def upsert_statement(
    *,
    cart: Cart | None,
    key: str,
    product_id: int,
    variant_id: int | None,
    options: dict,
    quantity: int,
    cart_from: str | None = None,
) -> tuple[str, list]:
    """The upsert of line `key` (INSERT ... ON CONFLICT DO UPDATE ... RETURNING the line's
    quantity), as SQL and parameters: for `cart`, or for the cart row a preceding common table
    expression named `cart_from` answers (its `id`; nothing is inserted when it has no row)."""
    meta = CartItem._meta
    now = timezone.now()
    values = {
        "key": key,
        "product": product_id,
        "variant": variant_id,
        "options": options,
        "quantity": quantity,
        "created_at": now,
        "updated_at": now,
    }
    if cart_from is None:
        values = {"cart": cart.pk, **values}
    fields = [meta.get_field(name) for name in values]
    params = [
        field.get_db_prep_save(value, connection)
        for field, value in zip(fields, values.values(), strict=True)
    ]
    qn = connection.ops.quote_name
    table = qn(meta.db_table)
    marks = ", ".join(["%s"] * len(fields))
    if cart_from is None:
        columns, source = fields, f"VALUES ({marks})"
    else:
        columns = [meta.get_field("cart"), *fields]
        source = f"SELECT {qn(cart_from)}.{qn('id')}, {marks} FROM {qn(cart_from)}"  # noqa: S608
    names = ", ".join(qn(field.column) for field in columns)
    quantity_column, updated_column = qn("quantity"), qn("updated_at")
    # Names are quoted from the model's meta; every value is a parameter.
    sql = (
        f"INSERT INTO {table} ({names}) {source} "
        f"ON CONFLICT ({qn('cart_id')}, {qn('key')}) DO UPDATE SET "
        f"{quantity_column} = {table}.{quantity_column} + EXCLUDED.{quantity_column}, "
        f"{updated_column} = EXCLUDED.{updated_column} "
        f"RETURNING {quantity_column}"
    )
    return sql, params


def upsert_line(
    *,
    cart: Cart,
    key: str,
    product_id: int,
    variant_id: int | None,
    options: dict,
    quantity: int,
) -> int:
    """Insert the line `key` of the (locked) cart, or add `quantity` to it; answer the line's
    quantity now. One statement (INSERT ... ON CONFLICT DO UPDATE ... RETURNING), on
    PostgreSQL and SQLite alike. The caller checks the result and raises to take it back."""
    sql, params = upsert_statement(
        cart=cart,
        key=key,
        product_id=product_id,
        variant_id=variant_id,
        options=options,
        quantity=quantity,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]
