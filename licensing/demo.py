"""Demo data for `manage.py seed_demo` (development only): products, then clients, packs, a
Business Bundle subscription, licences (one expiring soon, to try renewals), releases and
components. Idempotent: what exists is kept."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from django.core.files.base import ContentFile
from django.db.models import Count
from django.utils import timezone

from accounts.models import User
from clients.models import Client
from licensing.models import (
    Component,
    License,
    LicenseSource,
    Pack,
    Product,
    Release,
    Subscription,
    SubscriptionStatus,
    Tier,
)
from licensing.services.licenses import license_create
from licensing.services.releases import component_save, release_save

DEMO_PRODUCTS = [
    {
        "slug": "emporion-theme",
        "name": "Emporion Theme",
        "description": "The storefront theme.",
        "starter_yearly_price": Decimal("59.00"),
        "starter_max_domains": 1,
        "business_yearly_price": Decimal("199.00"),
        "business_max_domains": 5,
    },
    {
        "slug": "emporion-seo",
        "name": "Emporion SEO Toolkit",
        "description": "Search-engine tools for the store.",
        "starter_yearly_price": Decimal("39.00"),
        "starter_max_domains": 1,
        "business_yearly_price": Decimal("129.00"),
        "business_max_domains": 10,
    },
]

DEMO_CLIENTS = [
    ("reseller@example.com", "ops@northwind.example", "Nora Northwind", "Northwind Traders"),
    ("agency@example.com", "it@contoso.example", "Carl Contoso", "Contoso Studio"),
]
DEMO_PACKS = [("reseller@example.com", "Reseller 50", 50), ("agency@example.com", "Agency 25", 25)]
DEMO_RELEASES = [
    ("emporion-theme", "1.0.0", "First release."),
    ("emporion-theme", "1.1.0", "Faster product pages; a new header layout."),
    ("emporion-seo", "2.0.0", "Sitemaps for every language."),
]
DEMO_COMPONENTS = [
    ("emporion-theme", "slider", "Hero slider", "1.2.0", Tier.STARTER),
    ("emporion-theme", "b2b-pricing", "B2B price lists", "1.0.1", Tier.BUSINESS),
]


def seed() -> list[str]:
    lines = []
    for fields in DEMO_PRODUCTS:
        values = {key: value for key, value in fields.items() if key != "slug"}
        product, _created = Product.objects.update_or_create(slug=fields["slug"], defaults=values)
        lines.append(f"  {product.name} (slug {product.slug}, id {product.pk})")
    return lines


def _demo_file(name: str, text: str) -> ContentFile:
    return ContentFile(f"{text}\n".encode() * 64, name=name)


def seed_licensing() -> list[str]:
    now = timezone.now()
    accounts = {user.email: user for user in User.objects.filter(email__endswith="@example.com")}
    products = {product.slug: product for product in Product.objects.all()}
    theme, seo = products["emporion-theme"], products["emporion-seo"]
    lines = []

    clients = {}
    for owner_email, email, name, company in DEMO_CLIENTS:
        client, _ = Client.objects.get_or_create(
            email=email,
            defaults={"owner": accounts[owner_email], "name": name, "company": company},
        )
        clients[owner_email] = client
        lines.append(f"  client {client.email} (id {client.pk}) of {owner_email}")

    for owner_email, bundle, size in DEMO_PACKS:
        pack, _ = Pack.objects.get_or_create(
            owner=accounts[owner_email], bundle=bundle, defaults={"size": size}
        )
        lines.append(f"  pack {bundle}: {pack.remaining} of {pack.size} credits ({owner_email})")

    reseller = accounts["reseller@example.com"]
    subscription = Subscription.objects.filter(
        owner=reseller, customer=None, status=SubscriptionStatus.ACTIVE
    ).first() or Subscription.objects.create(
        owner=reseller, current_period_end=now + timedelta(days=365)
    )
    lines.append(
        f"  Business Bundle subscription #{subscription.pk} of reseller@example.com until "
        f"{subscription.current_period_end:%Y-%m-%d}"
    )

    plan = [
        ("developer@example.com", theme, Tier.STARTER, None, None),
        ("developer@example.com", seo, Tier.STARTER, now + timedelta(days=12), None),
        ("reseller@example.com", theme, Tier.BUSINESS, None, None),
        ("reseller@example.com", seo, Tier.STARTER, now + timedelta(days=20), "client"),
        ("agency@example.com", theme, Tier.STARTER, None, "client"),
    ]
    for email, product, tier, expires_at, for_client in plan:
        owner = accounts[email]
        if License.objects.filter(owner=owner, product=product).exists():
            continue
        license_create(
            owner=owner,
            product=product,
            tier=tier,
            expires_at=expires_at,
            customer_id=clients[email].pk if for_client else None,
            source=LicenseSource.INDIVIDUAL,
            enforce_limit=False,
        )
    # A count per account, not every licence: the demo accounts gather licences as they are
    # used, and the keys are one request away (GET /api/v1/portal/licenses).
    counts = (
        License.objects.filter(owner__email__in=[email for email, *_rest in plan])
        .values_list("owner__email")
        .annotate(n=Count("id"))
        .order_by("owner__email")
    )
    per_account = ", ".join(f"{email} {n}" for email, n in counts)
    lines.append(
        f"  licences: {per_account} (list them: GET /api/v1/portal/licenses, or the admin)"
    )

    for slug, version, changelog in DEMO_RELEASES:
        product = products[slug]
        if not Release.objects.filter(product=product, version=version).exists():
            release_save(
                release=Release(
                    product=product,
                    version=version,
                    changelog=changelog,
                    file=_demo_file(f"{slug}-{version}.zip", f"{slug} {version}"),
                )
            )
    for slug, component_slug, name, version, min_tier in DEMO_COMPONENTS:
        product = products[slug]
        if not Component.objects.filter(product=product, slug=component_slug).exists():
            component_save(
                component=Component(
                    product=product,
                    slug=component_slug,
                    name=name,
                    version=version,
                    min_tier=min_tier,
                    file=_demo_file(f"{component_slug}-{version}.zip", name),
                )
            )
    lines.append(f"  releases: {Release.objects.count()}, components: {Component.objects.count()}")
    return lines
