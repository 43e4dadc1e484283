"""Demo catalog for `manage.py seed_demo` (development only; idempotent by slug)."""

from __future__ import annotations

import io
from decimal import Decimal

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image, ImageDraw
from stdnum import ean

from store.catalog.models import Attribute, AttributeTerm, Brand, Category, Product
from store.catalog.services import products as product_services
from store.catalog.services import variants as variant_services
from store.media import services as media_services

CATEGORIES = [
    ("clothing", "Clothing", None),
    ("t-shirts", "T-shirts", "clothing"),
    ("hoodies", "Hoodies", "clothing"),
    ("accessories", "Accessories", None),
    ("bags", "Bags", "accessories"),
    ("caps", "Caps", "accessories"),
    ("home", "Home", None),
    ("mugs", "Mugs", "home"),
]
BRANDS = [
    ("northwind", "Northwind", "https://northwind.example.com"),
    ("aegean-goods", "Aegean Goods", "https://aegean.example.com"),
    ("lumen", "Lumen", ""),
]
ATTRIBUTES = {
    ("color", "Colour", "color"): [
        ("red", "Red", "#d62828"),
        ("blue", "Blue", "#1d4ed8"),
        ("black", "Black", "#111111"),
        ("white", "White", "#f5f5f5"),
    ],
    ("size", "Size", "button"): [("s", "S", ""), ("m", "M", ""), ("l", "L", ""), ("xl", "XL", "")],
}
COLOURS = {
    "red": (214, 40, 40),
    "blue": (29, 78, 216),
    "black": (30, 30, 30),
    "white": (235, 235, 235),
}


def _barcode(body: str) -> str:
    return body + ean.calc_check_digit(body)


def _picture(name: str, colour: tuple[int, int, int], shape: str = "circle") -> SimpleUploadedFile:
    """A simple generated product picture (no network, no binary files in the repository)."""
    image = Image.new("RGB", (1200, 1200), (248, 246, 242))
    draw = ImageDraw.Draw(image)
    for y in range(1200):  # a soft vertical gradient
        shade = 248 - y // 40
        draw.line([(0, y), (1200, y)], fill=(shade, shade - 2, shade - 6))
    box = (260, 260, 940, 940)
    if shape == "circle":
        draw.ellipse(box, fill=colour)
    else:
        draw.rounded_rectangle(box, radius=80, fill=colour)
    draw.rectangle((0, 1100, 1200, 1200), fill=colour)
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=88)
    return SimpleUploadedFile(f"{name}.jpg", buffer.getvalue(), content_type="image/jpeg")


def _image(name: str, colour, shape="circle", alt=""):
    return media_services.media_upload(file=_picture(name, colour, shape), alt_text=alt, title=alt)


def _taxonomy() -> tuple[dict, dict, dict]:
    categories: dict[str, Category] = {}
    for slug, name, parent in CATEGORIES:
        category, _ = Category.objects.get_or_create(
            slug=slug, defaults={"name": name, "parent": categories.get(parent)}
        )
        categories[slug] = category
    brands = {}
    for slug, name, website in BRANDS:
        brands[slug], _ = Brand.objects.get_or_create(
            slug=slug, defaults={"name": name, "website": website}
        )
    terms: dict[str, dict[str, AttributeTerm]] = {}
    for (slug, name, kind), values in ATTRIBUTES.items():
        attribute, _ = Attribute.objects.get_or_create(
            slug=slug, defaults={"name": name, "type": kind}
        )
        terms[slug] = {}
        for order, (term_slug, term_name, value) in enumerate(values):
            terms[slug][term_slug], _ = AttributeTerm.objects.get_or_create(
                attribute=attribute,
                slug=term_slug,
                defaults={"name": term_name, "value": value, "sort_order": order},
            )
    return categories, brands, terms


def _variable(slug, title, *, sku, brand, category, colours, sizes, price, terms, sale=None):
    featured = _image(slug, COLOURS[colours[0]], alt=title)
    gallery = [_image(f"{slug}-{c}", COLOURS[c], "square", f"{title} in {c}") for c in colours[1:]]
    product = product_services.product_create(
        fields={
            "title": title,
            "slug": slug,
            "type": "variable",
            "status": "active",
            "sku": sku,
            "brand": brand.pk,
            "category_ids": [category.pk],
            "regular_price": price,
            "short_description": f"{title}: soft, durable, made to last.",
            "description": f"<p>{title} in {len(colours)} colours and {len(sizes)} sizes.</p>",
            "featured_image_id": featured.pk,
            "gallery_image_ids": [image.pk for image in gallery],
            "weight": Decimal("0.300"),
        }
    )
    stock = 0
    for colour in colours:
        for size in sizes:
            stock = (stock + 7) % 13  # some variants run out
            fields = {
                "sku": f"{sku}-{colour}-{size}".upper(),
                "attributes": [
                    {
                        "attribute_id": terms["color"][colour].attribute_id,
                        "term_id": terms["color"][colour].pk,
                    },
                    {
                        "attribute_id": terms["size"][size].attribute_id,
                        "term_id": terms["size"][size].pk,
                    },
                ],
                "stock_quantity": stock,
            }
            if sale and colour == sale[0]:
                fields["sale_price"] = sale[1]
            variant_services.variant_create(product_id=product.pk, fields=fields)
    return product


def _simple(
    slug,
    title,
    *,
    sku,
    brand,
    category,
    price,
    stock,
    colour,
    status="active",
    sale=None,
    barcode=None,
    shape="square",
):
    image = _image(slug, COLOURS[colour], shape, title)
    fields = {
        "title": title,
        "slug": slug,
        "status": status,
        "sku": sku,
        "brand": brand.pk,
        "category_ids": [category.pk],
        "regular_price": price,
        "stock_quantity": stock,
        "short_description": f"The {title.lower()} everyone asks about.",
        "featured_image_id": image.pk,
    }
    if sale:
        fields["sale_price"] = sale
    if barcode:
        fields["ean"] = barcode
    return product_services.product_create(fields=fields)


def seed() -> list[str]:
    categories, brands, terms = _taxonomy()
    made = []
    specs = [
        (
            "classic-tee",
            lambda: _variable(
                "classic-tee",
                "Classic Cotton T-shirt",
                sku="TEE",
                brand=brands["northwind"],
                category=categories["t-shirts"],
                colours=["red", "blue", "black"],
                sizes=["s", "m", "l"],
                price=Decimal("19.90"),
                terms=terms,
                sale=("blue", Decimal("15.90")),
            ),
        ),
        (
            "zip-hoodie",
            lambda: _variable(
                "zip-hoodie",
                "Zip Hoodie",
                sku="HOOD",
                brand=brands["aegean-goods"],
                category=categories["hoodies"],
                colours=["black", "white"],
                sizes=["m", "l", "xl"],
                price=Decimal("49.00"),
                terms=terms,
            ),
        ),
        (
            "canvas-tote",
            lambda: _simple(
                "canvas-tote",
                "Canvas Tote Bag",
                sku="TOTE-1",
                brand=brands["aegean-goods"],
                category=categories["bags"],
                price=Decimal("24.00"),
                stock=30,
                colour="white",
                barcode=_barcode("520123456789"),
            ),
        ),
        (
            "baseball-cap",
            lambda: _simple(
                "baseball-cap",
                "Baseball Cap",
                sku="CAP-1",
                brand=brands["northwind"],
                category=categories["caps"],
                price=Decimal("18.00"),
                sale=Decimal("14.50"),
                stock=12,
                colour="blue",
                shape="circle",
            ),
        ),
        (
            "ceramic-mug",
            lambda: _simple(
                "ceramic-mug",
                "Ceramic Mug",
                sku="MUG-1",
                brand=brands["lumen"],
                category=categories["mugs"],
                price=Decimal("9.50"),
                stock=0,
                colour="red",
                barcode=_barcode("520987654321"),
            ),
        ),
        (
            "travel-backpack",
            lambda: _simple(
                "travel-backpack",
                "Travel Backpack",
                sku="PACK-1",
                brand=brands["lumen"],
                category=categories["bags"],
                price=Decimal("79.00"),
                stock=5,
                colour="black",
                status="draft",
            ),
        ),
    ]
    for slug, make in specs:
        product = Product.objects.filter(slug=slug).first() or make()
        made.append(f"  {product.title:<24} {product.type:<8} {product.status:<7} id {product.pk}")
    return made
