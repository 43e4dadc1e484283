"""The `tax` section of the store settings."""

from __future__ import annotations

from rest_framework import serializers

from store.common.params import StrictBooleanField, StrictCharField
from store.settings.registry import Section, register
from store.settings.sections import StrictChoiceField


class TaxSettings(serializers.Serializer):
    enabled = StrictBooleanField(
        default=True, help_text="Compute tax from the tax rates (off: no tax anywhere)."
    )
    prices_include_tax = StrictBooleanField(
        default=False,
        help_text="Product prices, coupon amounts and shipping costs are entered with tax "
        "included (the price stays the same for every customer; the tax inside it follows "
        "the customer's rate).",
    )
    tax_based_on = StrictChoiceField(
        choices=["shipping", "base"],
        default="shipping",
        help_text="shipping: the cart's shipping address (the store's country until one is "
        "given); base: always the store's country (general.store_country).",
    )
    shipping_taxable = StrictBooleanField(
        default=True, help_text="Shipping costs are taxed (at the shipping tax class's rates)."
    )
    shipping_tax_class = StrictCharField(
        max_length=100, default="standard", help_text="Slug of the tax class shipping uses."
    )
    eu_reverse_charge = StrictBooleanField(
        default=False,
        help_text="EU B2B reverse charge: a customer with a valid VAT number (python-stdnum) "
        "of an EU member state other than the store's country pays no tax (the customer "
        "accounts for it). Tax-inclusive prices stay the same.",
    )


TAX = register(Section("tax", "Tax", TaxSettings))
