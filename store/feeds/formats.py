"""The marketplaces' feed formats: Google Merchant Center's RSS 2.0 (g: namespace) and
Skroutz's XML (mywebstore).

A format turns one product into its feed entries, or into a skip record naming the required
attributes it lacks (the product is left out and reported in the feed's status). Entries are
written with xml.sax.saxutils.XMLGenerator, a streaming writer that escapes every text and
attribute; text is first cleaned of the characters XML 1.0 does not allow (controls, lone
surrogates, U+FFFE/U+FFFF). Nothing is assembled as a string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from urllib.parse import quote
from xml.sax.saxutils import XMLGenerator

from django.conf import settings
from django.utils import timezone
from django.utils.html import strip_tags
from stdnum import ean

from common.links import absolute_url
from store.catalog.choices import ProductType, StockStatus
from store.catalog.models import Product, Variant
from store.common.money import from_cents, to_cents
from store.feeds.models import Feed, Marketplace
from store.feeds.selectors import Taxonomy
from store.tax.calculation import Rate, taxed

GOOGLE_NS = "http://base.google.com/ns/1.0"
ILLEGAL_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
SPACES = re.compile(r"[ \t\r\n]+")
GRAMS = {
    "kg": Decimal(1000),
    "g": Decimal(1),
    "lb": Decimal("453.59237"),
    "oz": Decimal("28.349523125"),
}
SIZE_SLUGS = ("size", "megethos")
COLOR_SLUGS = ("color", "colour", "chroma")

# Skroutz's availability wording (its spec's fixed phrases).
SKROUTZ_AVAILABILITY = (
    "Άμεση παραλαβή / Παράδοση 1 έως 3 ημέρες",
    "Παράδοση σε 1 - 3 ημέρες",
    "Παράδοση σε 4 - 10 ημέρες",
    "Παράδοση έως 30 ημέρες",
    "Κατόπιν παραγγελίας",
)
SKROUTZ_DEFAULTS = {
    "availability_in_stock": SKROUTZ_AVAILABILITY[0],
    "availability_backorder": SKROUTZ_AVAILABILITY[2],
    "availability_out_of_stock": SKROUTZ_AVAILABILITY[4],
}
GOOGLE_AVAILABILITY = ("in_stock", "out_of_stock", "preorder", "backorder")
GOOGLE_CONDITIONS = ("new", "refurbished", "used")


def clean(value, *, limit: int | None = None) -> str:
    """`value` as feed text: XML 1.0-illegal characters dropped, runs of white space made one
    space, trimmed, cut to `limit` characters."""
    text = SPACES.sub(" ", ILLEGAL_XML.sub("", str(value or ""))).strip()
    return text[:limit].rstrip() if limit else text


def plain(html: str, *, limit: int) -> str:
    return clean(strip_tags(html or ""), limit=limit)


def gtin_valid(value: str) -> bool:
    """A GTIN-8/12/13/14 (digits only) with a right check digit (python-stdnum)."""
    return value.isascii() and value.isdigit() and ean.is_valid(value)


def product_link(product: Product) -> str:
    path = settings.FEEDS_PRODUCT_PATH.format(slug=quote(product.slug, safe=""))
    return absolute_url(path)


class Writer:
    """An XMLGenerator with the feed's element helpers (UTF-8, XML declaration)."""

    def __init__(self, out) -> None:
        self.xml = XMLGenerator(out, encoding="utf-8", short_empty_elements=True)

    def begin(self) -> None:
        self.xml.startDocument()

    def finish(self) -> None:
        self.xml.endDocument()

    def start(self, name: str, attrs: dict | None = None) -> None:
        self.xml.startElement(name, {k: clean(v) for k, v in (attrs or {}).items()})

    def end(self, name: str) -> None:
        self.xml.endElement(name)

    def element(self, name: str, value, attrs: dict | None = None) -> None:
        if isinstance(value, list):  # nested elements: [(name, value), ...]
            self.start(name, attrs)
            for child, child_value in value:
                self.element(child, child_value)
            self.end(name)
            return
        self.start(name, attrs)
        self.xml.characters(clean(value))
        self.end(name)


@dataclass
class Context:
    """What every entry of one generation shares."""

    feed: Feed
    config: dict  # the store's settings
    taxonomy: Taxonomy
    mapping: dict[int, str]
    percents: dict[str, Decimal]  # each tax class's rate at the store's country
    ids: set[str] = field(default_factory=set)  # the item ids written so far

    @property
    def currency(self) -> str:
        return self.config["currency"]["currency"]

    def gross(self, amount, tax_class: str) -> Decimal:
        """The price with tax, as a shopper in the store's country pays it."""
        percent = self.percents.get(tax_class, Decimal(0))
        rates = [Rate(id=0, label="", percent=percent)] if percent else []
        inclusive = self.config["tax"]["prices_include_tax"]
        return from_cents(taxed(to_cents(amount), rates, inclusive=inclusive).gross)

    def category_of(self, product: Product) -> int | None:
        """The product's category used in the feed: its deepest category (first by sort)."""
        ids = [c.pk for c in product.categories.all() if c.pk in self.taxonomy.paths]
        if not ids:
            return None
        return max(ids, key=lambda cid: len(self.taxonomy.paths[cid]))

    def mapped(self, category_id: int | None) -> str:
        """The mapping of the category or of its closest mapped ancestor."""
        if category_id is None:
            return ""
        for cid in reversed(self.taxonomy.paths.get(category_id, [])):
            if cid in self.mapping:
                return self.mapping[cid]
        return ""


@dataclass
class Skip:
    product: Product
    variant: Variant | None
    missing: list[str]

    def record(self) -> dict:
        return {
            "product_id": self.product.pk,
            "variant_id": self.variant.pk if self.variant else None,
            "sku": (self.variant.sku if self.variant else self.product.sku) or "",
            "title": clean(self.product.title, limit=255),
            "missing": self.missing,
        }


def images_of(product: Product) -> list[str]:
    urls = []
    if product.featured_image_id:
        urls.append(absolute_url(product.featured_image.url))
    for item in product.gallery_items.all():
        url = absolute_url(item.image.url)
        if url not in urls:
            urls.append(url)
    return urls


def terms_of(variant: Variant, slugs: tuple[str, ...]) -> str:
    for row in variant.variant_attributes.all():
        if row.attribute.slug in slugs:
            return row.term.name
    return ""


def amount_text(amount: Decimal) -> str:
    return format(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP), "f")


# --- Google Merchant Center ------------------------------------------------------------------


class GoogleFormat:
    marketplace = Marketplace.GOOGLE
    content_type = "application/rss+xml; charset=utf-8"

    def stable(self, content: bytes) -> bytes:
        """What the ETag hashes: the whole feed (nothing in it depends on the time)."""
        return content

    STOCK = {
        StockStatus.IN_STOCK: "in_stock",
        StockStatus.OUT_OF_STOCK: "out_of_stock",
        StockStatus.ON_BACKORDER: "backorder",
    }

    def head(self, writer: Writer, ctx: Context) -> None:
        writer.start("rss", {"version": "2.0", "xmlns:g": GOOGLE_NS})
        writer.start("channel")
        name = ctx.config["general"]["store_name"]
        writer.element("title", clean(name, limit=150) or "Store")
        writer.element("link", absolute_url("/"))
        writer.element("description", f"{clean(name, limit=150) or 'Store'} products")

    def tail(self, writer: Writer) -> None:
        writer.end("channel")
        writer.end("rss")

    def write(self, writer: Writer, fields: list) -> None:
        writer.start("item")
        for name, value in fields:
            writer.element(name, value)
        writer.end("item")

    def entries(self, product: Product, ctx: Context):
        """(fields, None) per item, or (None, Skip)."""
        if product.type == ProductType.VARIABLE:
            variants = [
                v
                for v in product.variants.all()
                if v.price is not None
                and (ctx.feed.include_out_of_stock or v.stock_status != StockStatus.OUT_OF_STOCK)
            ]
            if not variants:
                yield None, Skip(product, None, ["variants"])
                return
            for variant in variants:
                yield self._entry(product, variant, ctx)
        else:
            yield self._entry(product, None, ctx)

    def _entry(self, product: Product, variant: Variant | None, ctx: Context):
        missing: list[str] = []
        source = variant or product
        images = images_of(product)
        if variant is not None and variant.image_id:
            images = [absolute_url(variant.image.url), *images]
        title = clean(product.title, limit=150)
        if variant is not None:
            extra = clean(variant.title) or ", ".join(
                row.term.name for row in variant.variant_attributes.all()
            )
            title = clean(f"{product.title} - {extra}" if extra else product.title, limit=150)
        description = plain(product.description, limit=5000) or plain(
            product.short_description, limit=5000
        )
        sku = clean(source.sku)
        if variant is not None:
            item_id = sku if sku and len(sku) <= 50 else f"{product.pk}-{variant.pk}"
        else:
            item_id = sku if sku and len(sku) <= 50 else str(product.pk)
        gtin = clean(variant.barcode if variant is not None else product.ean)
        brand = clean(product.brand.name, limit=70) if product.brand_id else ""
        for name, present in (
            ("title", title),
            ("description", description),
            ("image_link", images),
            ("price", source.price is not None),
            ("brand", brand),
        ):
            if not present:
                missing.append(name)
        if gtin and not gtin_valid(gtin):
            missing.append("gtin")
        if item_id in ctx.ids:  # a SKU shared with another product's variant, or the like
            missing.append("id")
        if missing:
            return None, Skip(product, variant, missing)
        ctx.ids.add(item_id)

        fields: list = [
            ("g:id", item_id),
            ("title", title),
            ("description", description),
            ("link", product_link(product)),
            ("g:image_link", images[0]),
            *[("g:additional_image_link", url) for url in images[1:11]],
            ("g:availability", self.STOCK.get(source.stock_status, "in_stock")),
        ]
        currency = ctx.currency
        tax_class = product.feed_tax_class
        if source.on_sale and source.regular_price is not None and source.sale_price is not None:
            regular = ctx.gross(source.regular_price, tax_class)
            fields.append(("g:price", f"{amount_text(regular)} {currency}"))
            sale = ctx.gross(source.sale_price, tax_class)
            fields.append(("g:sale_price", f"{amount_text(sale)} {currency}"))
        else:
            price = ctx.gross(source.price, tax_class)
            fields.append(("g:price", f"{amount_text(price)} {currency}"))
        fields.append(("g:brand", brand))
        mpn = clean(product.mpn, limit=70)
        if gtin:
            fields.append(("g:gtin", gtin))
        if mpn:
            fields.append(("g:mpn", mpn))
        if not gtin and not mpn:
            fields.append(("g:identifier_exists", "no"))
        fields.append(("g:condition", product.product_condition))
        category_id = ctx.category_of(product)
        mapped = ctx.mapped(category_id)
        if mapped:
            fields.append(("g:google_product_category", mapped))
        if category_id is not None:
            fields.append(("g:product_type", clean(ctx.taxonomy.path_text(category_id), limit=750)))
        if variant is not None:
            product_sku = clean(product.sku)
            group = product_sku if product_sku and len(product_sku) <= 50 else str(product.pk)
            fields.append(("g:item_group_id", group))
            color = clean(terms_of(variant, COLOR_SLUGS), limit=100)
            size = clean(terms_of(variant, SIZE_SLUGS), limit=100)
            if color:
                fields.append(("g:color", color))
            if size:
                fields.append(("g:size", size))
        if ctx.feed.shipping_price is not None:
            country = ctx.feed.shipping_country or ctx.config["general"]["store_country"]
            shipping = f"{amount_text(ctx.feed.shipping_price)} {currency}"
            fields.append(("g:shipping", [("g:country", country), ("g:price", shipping)]))
        return fields, None


# --- Skroutz ---------------------------------------------------------------------------------


class SkroutzFormat:
    marketplace = Marketplace.SKROUTZ
    content_type = "application/xml; charset=utf-8"
    CREATED_AT = re.compile(rb"<created_at>[^<]*</created_at>")

    def stable(self, content: bytes) -> bytes:
        """What the ETag hashes: the feed without its `created_at`, so the same catalog keeps
        the stored feed (and its ETag and creation time) instead of a new one every minute."""
        return self.CREATED_AT.sub(b"", content, count=1)

    def head(self, writer: Writer, ctx: Context) -> None:
        writer.start("mywebstore")
        writer.element("created_at", timezone.now().strftime("%Y-%m-%d %H:%M"))
        writer.start("products")

    def tail(self, writer: Writer) -> None:
        writer.end("products")
        writer.end("mywebstore")

    def write(self, writer: Writer, fields: list) -> None:
        writer.start("product")
        for name, value, *attrs in fields:
            writer.element(name, value, attrs[0] if attrs else None)
        writer.end("product")

    def availability(self, status: str, feed: Feed) -> str:
        setting = {
            StockStatus.IN_STOCK: "availability_in_stock",
            StockStatus.ON_BACKORDER: "availability_backorder",
            StockStatus.OUT_OF_STOCK: "availability_out_of_stock",
        }.get(status, "availability_in_stock")
        return getattr(feed, setting) or SKROUTZ_DEFAULTS[setting]

    def entries(self, product: Product, ctx: Context):
        missing: list[str] = []
        variants = list(product.variants.all()) if product.type == ProductType.VARIABLE else []
        if product.type == ProductType.VARIABLE:
            variants = [
                v
                for v in variants
                if v.price is not None
                and (ctx.feed.include_out_of_stock or v.stock_status != StockStatus.OUT_OF_STOCK)
            ]
        name = clean(product.title, limit=300)
        images = images_of(product)
        category_id = ctx.category_of(product)
        category = ""
        if category_id is not None:
            category = clean(ctx.mapped(category_id) or ctx.taxonomy.path_text(category_id))
        price = product.price
        if variants:
            price = min(v.price for v in variants)
        manufacturer = clean(product.brand.name, limit=100) if product.brand_id else ""
        ean = clean(product.ean)
        for attribute, present in (
            ("name", name),
            ("image", images),
            ("category", category),
            ("price_with_vat", price is not None),
            ("manufacturer", manufacturer),
        ):
            if not present:
                missing.append(attribute)
        if product.type == ProductType.VARIABLE and not variants:
            missing.append("variants")
        if ean and not gtin_valid(ean):
            missing.append("ean")
        if missing:
            yield None, Skip(product, None, missing)
            return
        percent = ctx.percents.get(product.feed_tax_class, Decimal(0))
        if variants:
            quantity = sum(max(v.stock_quantity, 0) for v in variants if v.track_inventory)
            statuses = {v.stock_status for v in variants}
            status = next(
                (s for s in (StockStatus.IN_STOCK, StockStatus.ON_BACKORDER) if s in statuses),
                StockStatus.OUT_OF_STOCK,
            )
        else:
            quantity = max(product.stock_quantity, 0) if product.track_inventory else 0
            status = product.stock_status
        fields: list = [
            ("id", str(product.pk)),
            ("name", name),
            ("link", product_link(product)),
            ("image", images[0]),
            *[("additional_imageurl", url) for url in images[1:16]],
            ("category", category, {"id": str(category_id)}),
            ("price_with_vat", amount_text(ctx.gross(price, product.feed_tax_class))),
            ("vat", amount_text(percent)),
            ("manufacturer", manufacturer),
        ]
        mpn = clean(product.mpn, limit=100)
        if mpn:
            fields.append(("mpn", mpn))
        if ean:
            fields.append(("ean", ean))
        fields.append(("availability", self.availability(status, ctx.feed)))
        sizes = [s for s in dict.fromkeys(clean(terms_of(v, SIZE_SLUGS)) for v in variants) if s]
        if sizes:
            fields.append(("size", ", ".join(sizes)))
        colors = [c for c in dict.fromkeys(clean(terms_of(v, COLOR_SLUGS)) for v in variants) if c]
        if len(colors) == 1:
            fields.append(("color", colors[0]))
        weight = product.weight
        if weight is not None and weight >= 0:
            unit = ctx.config["general"]["weight_unit"]
            grams = (Decimal(weight) * GRAMS[unit]).quantize(Decimal(1), rounding=ROUND_HALF_UP)
            fields.append(("weight", str(int(grams))))
        fields.append(("quantity", str(min(quantity, 9_999_999))))
        description = plain(product.description, limit=10000) or plain(
            product.short_description, limit=10000
        )
        if description:
            fields.append(("description", description))
        yield fields, None


FORMATS = {Marketplace.GOOGLE: GoogleFormat(), Marketplace.SKROUTZ: SkroutzFormat()}
