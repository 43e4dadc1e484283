from django.urls import path

from .views import products, search, taxonomy, variants

urlpatterns = [
    # Products
    path("products", products.ProductListView.as_view(), name="store-products"),
    path("products/facets", products.ProductFacetsView.as_view(), name="store-product-facets"),
    path("products/lookup", products.ProductLookupView.as_view(), name="store-product-lookup"),
    path(
        "products/slug/<str:slug>",
        products.ProductBySlugView.as_view(),
        name="store-product-by-slug",
    ),
    path("products/<id:product_id>", products.ProductDetailView.as_view(), name="store-product"),
    path(
        "products/<id:product_id>/duplicate",
        products.ProductDuplicateView.as_view(),
        name="store-product-duplicate",
    ),
    path("search", search.SearchView.as_view(), name="store-search"),
    # Variants
    path(
        "products/<id:product_id>/variants",
        variants.ProductVariantsView.as_view(),
        name="store-product-variants",
    ),
    path(
        "products/<id:product_id>/variants/reorder",
        variants.VariantReorderView.as_view(),
        name="store-product-variants-reorder",
    ),
    path("variants/<id:variant_id>", variants.VariantDetailView.as_view(), name="store-variant"),
    # Categories
    path("categories", taxonomy.CategoryListView.as_view(), name="store-categories"),
    path("categories/tree", taxonomy.CategoryTreeView.as_view(), name="store-categories-tree"),
    path("categories/bulk", taxonomy.CategoryBulkView.as_view(), name="store-categories-bulk"),
    path(
        "categories/<id:category_id>", taxonomy.CategoryDetailView.as_view(), name="store-category"
    ),
    # Attributes and terms
    path("attributes", taxonomy.AttributeListView.as_view(), name="store-attributes"),
    path(
        "attributes-with-terms",
        taxonomy.AttributesWithTermsView.as_view(),
        name="store-attributes-with-terms",
    ),
    path("attributes/terms/<id:term_id>", taxonomy.TermDetailView.as_view(), name="store-term"),
    path(
        "attributes/<id:attribute_id>",
        taxonomy.AttributeDetailView.as_view(),
        name="store-attribute",
    ),
    path(
        "attributes/<id:attribute_id>/terms",
        taxonomy.AttributeTermsView.as_view(),
        name="store-attribute-terms",
    ),
    # Brands
    path("brands", taxonomy.BrandListView.as_view(), name="store-brands"),
    path("brands/search", taxonomy.BrandSearchView.as_view(), name="store-brands-search"),
    path("brands/<id:brand_id>", taxonomy.BrandDetailView.as_view(), name="store-brand"),
]
