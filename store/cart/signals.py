"""Signals of the cart, for the checkout (which the cart must not know).

`cart_merging` is sent inside the merge transaction, before a guest cart's lines join a
customer's cart and the guest cart is deleted, with `guest` and `into` (both locked). The
checkout moves the guest cart's checkout over and gives back what either cart held.
"""

from django.dispatch import Signal

cart_merging = Signal()
