import factory

from store.customers.models import Customer


class CustomerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Customer

    email = factory.Sequence(lambda n: f"customer{n}@example.com")
    first_name = "Cleo"
    last_name = factory.Sequence(lambda n: f"Customer{n}")
