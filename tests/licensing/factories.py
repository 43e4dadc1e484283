from datetime import timedelta
from decimal import Decimal

import factory
from django.core.files.base import ContentFile
from django.utils import timezone

from licensing.keys import generate_license_key
from licensing.models import (
    Activation,
    Component,
    License,
    LicenseSource,
    LicenseStatus,
    Pack,
    Product,
    Release,
    Subscription,
    Tier,
)
from tests.accounts.factories import ResellerFactory, UserFactory


class ProductFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Product

    name = factory.Sequence(lambda n: f"Product {n}")
    slug = factory.Sequence(lambda n: f"product-{n}")
    starter_yearly_price = Decimal("50.00")
    starter_max_domains = 1
    business_yearly_price = Decimal("200.00")
    business_max_domains = 3


class LicenseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = License

    owner = factory.SubFactory(UserFactory)
    product = factory.SubFactory(ProductFactory)
    license_key = factory.LazyFunction(generate_license_key)
    tier = Tier.STARTER
    status = LicenseStatus.ACTIVE
    source = LicenseSource.INDIVIDUAL
    expires_at = factory.LazyFunction(lambda: timezone.now() + timedelta(days=365))


class ActivationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Activation

    license = factory.SubFactory(LicenseFactory)
    domain = factory.Sequence(lambda n: f"site{n}.example.com")


class PackFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Pack

    owner = factory.SubFactory(ResellerFactory)
    bundle = "Reseller 10"
    size = 10


class SubscriptionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Subscription

    owner = factory.SubFactory(ResellerFactory)
    current_period_end = factory.LazyFunction(lambda: timezone.now() + timedelta(days=30))


class ReleaseFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Release

    product = factory.SubFactory(ProductFactory)
    version = "1.0.0"
    changelog = factory.LazyAttribute(lambda o: f"Changes in {o.version}.")
    file = factory.LazyAttribute(
        lambda o: ContentFile(f"release {o.version}".encode() * 100, name=f"r-{o.version}.zip")
    )
    file_size = factory.LazyAttribute(lambda o: len(f"release {o.version}".encode()) * 100)


class ComponentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Component

    product = factory.SubFactory(ProductFactory)
    slug = factory.Sequence(lambda n: f"component-{n}")
    name = factory.Sequence(lambda n: f"Component {n}")
    version = "1.0.0"
    min_tier = Tier.STARTER
    file = factory.LazyAttribute(lambda o: ContentFile(b"component" * 50, name=f"{o.slug}.zip"))
    file_size = 450
