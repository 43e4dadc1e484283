from decimal import Decimal

from store.tax.models import ProductTaxClass, TaxClass, TaxRate


def tax_class(slug="standard") -> TaxClass:
    return TaxClass.objects.get(slug=slug)


def make_rate(rate, *, country="", region="", postcodes="", tax_class_slug="standard", **fields):
    return TaxRate.objects.create(
        tax_class=tax_class(tax_class_slug),
        country=country,
        region=region,
        postcodes=postcodes,
        rate=Decimal(str(rate)),
        **fields,
    )


def set_product_class(product, slug) -> None:
    ProductTaxClass.objects.update_or_create(
        product=product, defaults={"tax_class": tax_class(slug)}
    )
