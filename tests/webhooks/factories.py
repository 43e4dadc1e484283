import factory
from django.utils import timezone

from tests.accounts.factories import ResellerFactory
from webhooks import signing
from webhooks.models import Delivery, Event, Webhook


class WebhookFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Webhook

    account = factory.SubFactory(ResellerFactory)
    url = "https://hooks.example.com/emporion"
    events = factory.LazyFunction(lambda: list(Event.values))
    secret = factory.LazyFunction(signing.new_secret)


def due_deliveries(webhooks, count: int) -> list[int]:
    """`count` due deliveries, the webhooks taking turns; their ids."""
    now = timezone.now()
    rows = [
        Delivery(
            webhook=webhooks[n % len(webhooks)],
            event="license.created",
            body=signing.build_body(event="license.created", moment=now, data={"n": n}),
            next_attempt_at=now,
            dispatched_at=now,
        )
        for n in range(count)
    ]
    return [delivery.pk for delivery in Delivery.objects.bulk_create(rows)]
