"""The payment methods: the sandbox card provider (test cards, idempotency, refunds), the
card data checks, the offline methods' instructions, and which methods are offered."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from common.errors import ServiceError
from store.payments import services
from store.payments.gateways import GATEWAYS, SandboxCardGateway
from store.payments.models import SandboxCharge
from store.payments.providers.base import Card
from store.payments.providers.sandbox import SandboxCardProvider, brand_of
from store.settings import selectors as store_settings
from store.settings import services as settings_services

pytestmark = pytest.mark.django_db

NEXT_YEAR = timezone.now().year + 1


def card(number="4242424242424242", **fields) -> Card:
    return Card(
        number=number,
        exp_month=fields.get("exp_month", 12),
        exp_year=fields.get("exp_year", NEXT_YEAR),
        cvc="123",
    )


def charge(number="4242424242424242", key="k1", **fields):
    return SandboxCardProvider().charge(
        amount=Decimal("12.50"),
        currency="eur",
        card=card(number, **fields),
        reference="EC-000001",
        description="Order EC-000001",
        idempotency_key=key,
    )


@pytest.mark.parametrize(
    ("number", "approved", "code", "brand"),
    [
        ("4242424242424242", True, "", "visa"),
        ("5555555555554444", True, "", "mastercard"),
        ("378282246310005", True, "", "amex"),
        ("4000000000000002", False, "card_declined", "visa"),
        ("4000000000009995", False, "insufficient_funds", "visa"),
        ("4000000000000069", False, "expired_card", "visa"),
        ("4000000000000127", False, "incorrect_cvc", "visa"),
        ("4000000000000119", False, "processing_error", "visa"),
        ("4111111111111111", False, "test_card_required", "visa"),
    ],
)
def test_the_sandbox_decides_by_the_test_card(number, approved, code, brand):
    result = charge(number)
    assert (result.approved, result.decline_code, result.brand) == (approved, code, brand)
    assert result.last4 == number[-4:]
    assert result.transaction_id.startswith("sbx_")
    assert (result.message == "") is approved
    row = SandboxCharge.objects.get()
    assert (row.amount, row.currency, row.status, row.reference) == (
        Decimal("12.50"),
        "EUR",
        "approved" if approved else "declined",
        "EC-000001",
    )


def test_a_card_past_its_month_is_declined_expired():
    today = timezone.now().date()
    last_month = (today.year - 1, 12) if today.month == 1 else (today.year, today.month - 1)
    result = charge(exp_year=last_month[0], exp_month=last_month[1])
    assert (result.approved, result.decline_code) == (False, "expired_card")
    this_month = charge(key="k2", exp_year=today.year, exp_month=today.month)
    assert this_month.approved is True


def test_the_same_idempotency_key_answers_the_same_charge():
    first = charge(key="same")
    again = charge("4000000000000002", key="same")  # a retry: the first answer, not a new one
    assert again == first
    assert SandboxCharge.objects.count() == 1


def test_refunds_stay_within_the_charge():
    result = charge()
    provider = SandboxCardProvider()
    provider.refund(transaction_id=result.transaction_id, amount=Decimal("10.00"))
    provider.refund(transaction_id=result.transaction_id, amount=Decimal("5.00"))  # too much
    assert SandboxCharge.objects.get().amount_refunded == Decimal("10.00")


def test_no_card_number_is_kept():
    charge()
    row = SandboxCharge.objects.values().get()
    assert "4242424242424242" not in str(row)
    assert repr(card()).count("4242") == 0


def test_brands():
    assert [brand_of(n) for n in ("4", "51", "2221", "34", "6011")] == [
        "visa",
        "mastercard",
        "mastercard",
        "amex",
        "card",
    ]


@pytest.mark.parametrize(
    ("data", "params"),
    [
        ({}, {"card_number", "exp_month", "exp_year", "cvc"}),
        (
            {"card_number": "4242 4242 4242 4241", "exp_month": 1, "exp_year": 30, "cvc": "1"},
            {
                "card_number",
                "cvc",
            },
        ),
        (
            {"card_number": "4242-4242-4242-4242", "exp_month": 13, "exp_year": 30, "cvc": "123"},
            {"exp_month"},
        ),
    ],
)
def test_card_data_is_checked(data, params):
    with pytest.raises(ServiceError) as caught:
        SandboxCardGateway().clean_data(data)
    assert caught.value.code == "invalid_param"
    assert set(caught.value.errors) == {f"payment_data.{name}" for name in params}


def test_card_data_cleaned():
    cleaned = SandboxCardGateway().clean_data(
        {"card_number": "4242-4242 4242-4242", "exp_month": 1, "exp_year": 31, "cvc": "123"}
    )
    assert (cleaned.number, cleaned.exp_month, cleaned.exp_year) == ("4242424242424242", 1, 2031)
    with pytest.raises(ServiceError):
        SandboxCardGateway().clean_data("4242")


def test_the_methods_offered(settings):
    assert [g.id for g in services.payment_methods()] == [
        "sandbox_card",
        "bank_transfer",
        "cash_on_delivery",
    ]
    settings.PAYMENT_SANDBOX_ALLOWED = False
    assert [g.id for g in services.payment_methods()] == ["bank_transfer", "cash_on_delivery"]
    with pytest.raises(ServiceError) as caught:
        services.gateway_get(method_id="sandbox_card")
    assert (caught.value.status_code, caught.value.code) == (503, "payments_not_configured")
    with pytest.raises(ServiceError) as caught:
        services.gateway_get(method_id="paypal")
    assert (caught.value.status_code, caught.value.code) == (400, "payment_method_unavailable")


def test_bank_transfer_instructions_name_the_account_and_the_reference():
    # the checkout's ceiling on an unpaid offline order raised above the hours tried here
    settings_services.settings_update(
        section="checkout", values={"offline_payment_hold_minutes": 7 * 24 * 60}
    )
    settings_services.settings_update(
        section="payments",
        values={
            "bank_transfer_account_name": "Shop Ltd",
            "bank_transfer_iban": "GR00 1111",
            "bank_transfer_hold_hours": 72,
        },
    )
    config = store_settings.get_all()
    text = GATEWAYS["bank_transfer"].instructions(config, order_number="EC-000007")
    assert text == (
        "Account holder: Shop Ltd\nIBAN: GR00 1111\nReference: EC-000007\n"
        "Unpaid orders are cancelled after 3 days."
    )
    settings_services.settings_update(section="payments", values={"bank_transfer_hold_hours": 36})
    config = store_settings.get_all()
    assert GATEWAYS["bank_transfer"].unpaid_hold(config) == timedelta(hours=36)
    assert GATEWAYS["bank_transfer"].instructions(config).endswith("cancelled after 36 hours.")


def test_the_bank_transfer_hold_and_its_words_are_the_checkouts_ceiling_when_shorter():
    settings_services.settings_update(section="payments", values={"bank_transfer_hold_hours": 24})
    config = store_settings.get_all()  # the ceiling's default: 120 minutes
    assert GATEWAYS["bank_transfer"].unpaid_hold(config) == timedelta(hours=2)
    assert GATEWAYS["bank_transfer"].instructions(config).endswith("cancelled after 2 hours.")
    settings_services.settings_update(
        section="checkout", values={"offline_payment_hold_minutes": 90}
    )
    config = store_settings.get_all()
    assert GATEWAYS["bank_transfer"].unpaid_hold(config) == timedelta(minutes=90)
    assert GATEWAYS["bank_transfer"].instructions(config).endswith("cancelled after 90 minutes.")
