import factory

from clients.models import Client
from tests.accounts.factories import ResellerFactory


class ClientFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Client

    owner = factory.SubFactory(ResellerFactory)
    email = factory.Sequence(lambda n: f"client{n}@customer.example")
    name = factory.Faker("name")
    company = factory.Faker("company")
