"""The cache of public product lists and facet counts, and what invalidates it.

Any change to what a list can show bumps the family's version: a saved or deleted catalog row
(products, variants, categories, brands, attributes, terms, gallery entries, reviews' effect on
ratings), a changed product-category or product-term link, an edited or deleted image, a changed
store setting. Model signals catch every ORM write (services and admin alike); services that
write with queryset.update() or bulk operations call `invalidate()` themselves.
"""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_delete, post_save

from store.common.cache import VersionedCache

lists = VersionedCache("catalog")


def invalidate() -> None:
    lists.bump()


def _on_change(sender, **kwargs) -> None:
    invalidate()


def connect_invalidation() -> None:
    from store.catalog import models
    from store.media.signals import media_changed
    from store.settings.signals import section_changed

    for model in (
        models.Product,
        models.Variant,
        models.VariantAttribute,
        models.Category,
        models.Brand,
        models.Attribute,
        models.AttributeTerm,
        models.ProductImage,
    ):
        uid = f"store.catalog.cache.{model.__name__}"
        post_save.connect(_on_change, sender=model, dispatch_uid=f"{uid}.save")
        post_delete.connect(_on_change, sender=model, dispatch_uid=f"{uid}.delete")
    for through in (models.Product.categories.through, models.Product.attribute_terms.through):
        m2m_changed.connect(
            _on_change, sender=through, dispatch_uid=f"store.catalog.cache.{through.__name__}"
        )
    media_changed.connect(_on_change, dispatch_uid="store.catalog.cache.media")
    section_changed.connect(_on_change, dispatch_uid="store.catalog.cache.settings")
