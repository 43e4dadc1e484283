from decimal import Decimal

from store.coupons import services
from store.coupons.models import Coupon


def make_coupon(code="SAVE10", discount_type="fixed_cart", amount="10", **fields) -> Coupon:
    fields = {
        "code": code,
        "discount_type": discount_type,
        "amount": Decimal(str(amount)),
        **fields,
    }
    for key in ("minimum_amount", "maximum_amount"):
        if isinstance(fields.get(key), (int, float, str)):
            fields[key] = Decimal(str(fields[key]))
    return services.coupon_create(fields=fields)
