import factory

from tests.accounts.factories import ResellerFactory
from webhooks import signing
from webhooks.models import Event, Webhook


class WebhookFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Webhook

    account = factory.SubFactory(ResellerFactory)
    url = "https://hooks.example.com/emporion"
    events = factory.LazyFunction(lambda: list(Event.values))
    secret = factory.LazyFunction(signing.new_secret)
