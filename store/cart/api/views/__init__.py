"""The cart's routes: the cart itself (cart.py) and the shopper's coupon routes (coupons.py)."""
