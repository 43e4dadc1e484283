"""Store customers: one per e-mail address, optionally linked to an account."""

import pytest

from common.errors import ServiceError
from store.customers import services
from store.customers.models import Customer
from tests.accounts.factories import UserFactory
from tests.store.customers.factories import CustomerFactory

pytestmark = pytest.mark.django_db


def test_create_lowers_the_email_and_refuses_a_duplicate():
    customer = services.customer_create(fields={"email": " Ana@Example.COM ", "first_name": "Ana"})
    assert customer.email == "ana@example.com"
    with pytest.raises(ServiceError) as caught:
        services.customer_create(fields={"email": "ANA@example.com"})
    assert caught.value.code == "duplicate_customer"
    with pytest.raises(ServiceError):
        services.customer_create(fields={"email": ""})
    assert Customer.objects.count() == 1


def test_an_account_belongs_to_one_customer():
    user = UserFactory()
    services.customer_create(fields={"email": "a@example.com", "user": user})
    with pytest.raises(ServiceError):
        services.customer_create(fields={"email": "b@example.com", "user": user})
    other = CustomerFactory()
    with pytest.raises(ServiceError):
        services.customer_update(customer_id=other.pk, fields={"user": user})


def test_the_customer_of_an_account():
    user = UserFactory(email="sam@example.com", name="Sam Shopper")
    made = services.customer_for_user(user=user)
    assert (made.email, made.user, made.first_name, made.last_name) == (
        "sam@example.com",
        user,
        "Sam",
        "Shopper",
    )
    assert services.customer_for_user(user=user) == made


def test_a_guest_customer_is_linked_when_the_account_appears():
    guest = CustomerFactory(email="gia@example.com")
    user = UserFactory(email="gia@example.com")
    assert services.customer_for_user(user=user) == guest
    guest.refresh_from_db()
    assert guest.user == user


def test_an_email_taken_by_another_accounts_customer_is_refused():
    owner = UserFactory(email="old@example.com")
    CustomerFactory(email="new@example.com", user=owner)
    newcomer = UserFactory(email="new@example.com")
    with pytest.raises(ServiceError) as caught:
        services.customer_for_user(user=newcomer)
    assert caught.value.code == "customer_email_taken"


def test_the_customer_of_an_email_links_the_account_with_it():
    user = UserFactory(email="lee@example.com", name="Lee")
    customer = services.customer_for_email(email="LEE@example.com", defaults={"phone": "1"})
    assert (customer.user, customer.phone, customer.first_name) == (user, "1", "Lee")
    assert services.customer_for_email(email="lee@example.com") == customer


def test_an_unverified_account_does_not_take_over_a_guest_customer():
    guest = CustomerFactory(email="gia@example.com")
    user = UserFactory(email="gia@example.com", email_verified=False)
    with pytest.raises(ServiceError) as caught:
        services.customer_for_user(user=user)
    assert caught.value.code == "customer_email_unverified"
    guest.refresh_from_db()
    assert guest.user is None
    # Verified, it does.
    user.email_verified = True
    user.save()
    assert services.customer_for_user(user=user) == guest


def test_an_unverified_account_without_history_gets_its_own_customer():
    user = UserFactory(email="nova@example.com", name="Nova Star", email_verified=False)
    customer = services.customer_for_user(user=user)
    assert (customer.email, customer.user, customer.first_name) == (
        "nova@example.com",
        user,
        "Nova",
    )


def test_a_guest_order_does_not_link_an_unverified_account():
    user = UserFactory(email="lee@example.com", email_verified=False)
    customer = services.customer_for_email(email="lee@example.com")
    assert customer.user is None
    assert not Customer.objects.filter(user=user).exists()
