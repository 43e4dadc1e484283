"""The catalog's recipes: products and variants, reviews, search, categories, brands,
attributes and their terms, media, the barcode lookup.
"""

from __future__ import annotations

import io

from common.api.examples.recipes.store_shared import (
    TEE,
    TOTE,
    cached,
    category,
    first_list,
    product,
    recorded_id,
    st,
    warehouse,
)
from common.api.examples.recorder import ACTION, DELETE, UPDATE, Recipe, Recorder


def ean13(first12: str) -> str:
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(first12))
    return first12 + str((10 - total % 10) % 10)


APRON_EAN = ean13("590123412345")


def scarf(rec: Recorder) -> int:
    """A variable product of the run's own (its variants come and go)."""
    return cached(
        rec,
        "scarf",
        lambda: st(
            rec,
            "POST",
            "/products",
            {"title": "Merino Scarf", "type": "variable", "status": "active", "price": "39.00"},
        )["id"],
    )


def png_image() -> bytes:
    from PIL import Image

    picture = Image.new("RGB", (64, 64), (202, 178, 140))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


CATALOG_RECIPES: dict[str, Recipe] = {
    # Products and variants.
    "product_list_post": Recipe(
        body=lambda rec, _p: {
            "title": "Linen Apron",
            "type": "simple",
            "status": "active",
            "sku": "APRON-NAT",
            "price": "24.90",
            "stock_quantity": 30,
            "short_description": "Stonewashed linen apron with two front pockets.",
            "ean": APRON_EAN,
            "category_ids": [category(rec, "Accessories")],
            "weight": "0.300",
        }
    ),
    "product_detail_put": Recipe(
        body={"title": "Linen Apron", "price": "26.90", "sale_price": "22.90"}
    ),
    "product_detail_patch": Recipe(body={"stock_quantity": 45, "low_stock_threshold": 5}),
    "product_variants_post": Recipe(
        params={"product_id": lambda rec, _p: scarf(rec)},
        body={"sku": "SCARF-GREY", "title": "Grey", "price": "39.00", "stock_quantity": 12},
    ),
    "variant_reorder_post": Recipe(
        params={"product_id": lambda rec, _p: product(rec, TEE)},
        body=lambda rec, p: {
            "order": [
                {"id": v["id"], "sort_order": n}
                for n, v in enumerate(
                    reversed(first_list(st(rec, "GET", f"/products/{p['product_id']}/variants")))
                )
            ][:3]
        },
    ),
    "product_variants_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_variants_delete": Recipe(params={"product_id": lambda rec, _p: scarf(rec)}),
    "variant_detail_get": Recipe(
        phase=ACTION + 1, params={"variant_id": recorded_id("product_variants_post")}
    ),
    "variant_detail_put": Recipe(
        phase=ACTION + 2,
        params={"variant_id": recorded_id("product_variants_post")},
        body={"price": "42.00", "stock_quantity": 10},
    ),
    "variant_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"variant_id": recorded_id("product_variants_post")},
        body={"sale_price": "35.00"},
    ),
    "variant_detail_delete": Recipe(
        phase=DELETE - 1, params={"variant_id": recorded_id("product_variants_post")}
    ),
    "product_by_slug_get": Recipe(
        params={"slug": lambda rec, _p: st(rec, "GET", f"/products/{product(rec, TOTE)}")["slug"]}
    ),
    "product_list_get": Recipe(query={"per_page": 3}),
    "product_lookup_get": Recipe(
        phase=UPDATE + 1,
        query=lambda rec, _p: {
            "barcode": APRON_EAN,
            "warehouse_id": warehouse(rec, "Main warehouse"),
        },
    ),
    # Reviews.
    "product_reviews_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_rating_get": Recipe(params={"product_id": lambda rec, _p: product(rec, TEE)}),
    "product_reviews_post": Recipe(
        actor="customer",
        params={"product_id": lambda rec, _p: product(rec, TOTE)},
        body={"rating": 5, "title": "Sturdy and roomy", "content": "Carries a week of groceries."},
    ),
    "review_helpful_post": Recipe(
        actor="customer",
        params={
            "review_id": lambda rec, _p: next(
                r["id"]
                for r in first_list(st(rec, "GET", f"/products/{product(rec, TEE)}/reviews"))
                if r.get("author", {}).get("email", "") != "developer@example.com"
            )
        },
    ),
    # Search.
    "search_get": Recipe(query={"q": "cotton", "per_page": 5}),
    "brand_search_get": Recipe(query={"q": "aeg"}),
    # Categories, brands, attributes and their terms.
    "category_list_post": Recipe(
        body={
            "name": "Home & Kitchen",
            "description": "Aprons, mugs and tea towels.",
            "sort_order": 4,
        }
    ),
    "category_detail_patch": Recipe(body={"description": "Everything for the kitchen table."}),
    "brand_list_post": Recipe(
        body={
            "name": "Olive & Thyme",
            "description": "Handmade in Crete.",
            "website": "https://oliveandthyme.example.com",
        }
    ),
    "brand_detail_patch": Recipe(body={"description": "Handmade in Chania, Crete."}),
    "attribute_list_post": Recipe(body={"name": "Material", "type": "select", "sort_order": 3}),
    "attribute_detail_patch": Recipe(body={"type": "button"}),
    "category_bulk_post": Recipe(
        body=lambda rec, _p: {
            "create": [{"name": "Stationery", "description": "Notebooks and pens."}],
            "update": [{"id": category(rec, "Accessories"), "sort_order": 1}],
        }
    ),
    "attribute_terms_get": Recipe(phase=ACTION + 1),
    "attribute_terms_post": Recipe(body={"name": "Navy", "value": "#1f2a44"}),
    "term_detail_get": Recipe(
        phase=ACTION + 1, params={"term_id": recorded_id("attribute_terms_post")}
    ),
    "term_detail_put": Recipe(
        phase=ACTION + 2,
        params={"term_id": recorded_id("attribute_terms_post")},
        body={"name": "Midnight navy"},
    ),
    "term_detail_patch": Recipe(
        phase=ACTION + 2,
        params={"term_id": recorded_id("attribute_terms_post")},
        body={"sort_order": 3},
    ),
    "term_detail_delete": Recipe(params={"term_id": recorded_id("attribute_terms_post")}),
    # Media.
    "media_list_post": Recipe(
        media_type="multipart/form-data",
        body={"alt": "Canvas tote bag on a wooden chair", "title": "Tote bag, lifestyle"},
        files=lambda rec, _p: {"file": ("tote-bag.png", png_image(), "image/png")},
    ),
}
