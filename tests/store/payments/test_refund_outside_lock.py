"""A refund calls its provider outside any transaction and without the order's lock: its
refunds are written pending first (a concurrent refund counts them), recorded after."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from unittest import mock

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from common.errors import ServiceError
from store.orders.models import Order
from store.payments import services
from store.payments.models import GatewayRefund
from store.payments.providers.base import ProviderUnavailable
from store.payments.providers.sandbox import SandboxProvider
from tests.store.payments.helpers import order_for, pay

REFUND = "store.payments.providers.sandbox.SandboxProvider.refund"
real_refund = SandboxProvider.refund


@pytest.fixture
def paid(online, anon):
    order, _product = order_for("stripe", price="10.00", quantity=2)  # 20.00
    pay(anon, "stripe", order)
    return order


@pytest.mark.django_db(transaction=True)
def test_the_provider_is_called_outside_any_transaction_and_a_concurrent_refund_counts_it(
    paid,
):
    seen = {}

    def provider_refund(provider, **kwargs):
        seen["in_transaction"] = connection.in_atomic_block
        seen["pending"] = list(GatewayRefund.objects.values_list("status", "amount"))
        # another refund of what is left, while this one waits on its provider
        with pytest.raises(ServiceError) as refused:
            services.refund_create(order_id=paid.pk, amount=Decimal("15.00"))
        seen["concurrent"] = refused.value.code
        return real_refund(provider, **kwargs)

    with mock.patch(REFUND, autospec=True, side_effect=provider_refund):
        result = services.refund_create(order_id=paid.pk, amount=Decimal("6.00"))
    assert seen == {
        "in_transaction": False,
        "pending": [("pending", Decimal("6.00"))],
        "concurrent": "refund_exceeds_refundable",  # 14.00 left while 6.00 is under way
    }
    (row,) = result.refunds
    assert (row.status, row.amount, row.payment.amount) == ("done", Decimal("6.00"), 6)
    assert Order.objects.get(pk=paid.pk).amount_refunded == Decimal("6.00")


@pytest.mark.django_db
def test_a_failed_call_removes_its_pending_refund_and_a_retry_sends_the_same_key(paid):
    keys = []

    def failing(provider, **kwargs):
        keys.append(kwargs["idempotency_key"])
        raise ProviderUnavailable("down")

    with mock.patch(REFUND, autospec=True, side_effect=failing), pytest.raises(ProviderUnavailable):
        services.refund_create(order_id=paid.pk, amount=Decimal("5.00"))
    assert not GatewayRefund.objects.exists()

    def answering(provider, **kwargs):
        keys.append(kwargs["idempotency_key"])
        return real_refund(provider, **kwargs)

    with mock.patch(REFUND, autospec=True, side_effect=answering):
        services.refund_create(order_id=paid.pk, amount=Decimal("5.00"))
    assert keys == [keys[0], keys[0]]  # the provider answers the same refund
    assert GatewayRefund.objects.get().status == "done"


@pytest.mark.django_db
def test_a_refund_abandoned_mid_call_stops_counting_after_ten_minutes(paid):
    charge = paid.payments.get(kind="payment")
    GatewayRefund.objects.create(  # its process died while the provider was called
        order=paid,
        charge=charge,
        status=GatewayRefund.Status.PENDING,
        gateway="stripe",
        amount=Decimal("20.00"),
        currency="EUR",
        idempotency_key=f"refund:{paid.pk}:0:{charge.pk}:20.00",
    )
    with pytest.raises(ServiceError) as refused:
        services.refund_create(order_id=paid.pk, amount=Decimal("1.00"))
    assert refused.value.code == "refund_exceeds_refundable"
    later = timezone.now() + services.REFUND_RESERVATION + timedelta(seconds=1)
    with time_machine.travel(later):
        result = services.refund_create(order_id=paid.pk, amount=Decimal("1.00"))
    assert [r.status for r in result.refunds] == ["done"]
    assert list(GatewayRefund.objects.values_list("status", "amount")) == [
        ("done", Decimal("1.00"))
    ]
