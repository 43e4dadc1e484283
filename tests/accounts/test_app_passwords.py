import base64
import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import AppPassword, User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.stand_in_urls")]

STORE = "/rest/ec/v1/stand-in/basic"


def basic(email: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{email}:{password}".encode()).decode()


def make_password(email="shop@example.com", name="ERP sync") -> str:
    out = StringIO()
    call_command("create_app_password", email, name, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def test_command_prints_the_password_once_and_stores_a_hash():
    user = UserFactory(email="shop@example.com")
    secret = make_password()
    assert len(secret.replace(" ", "")) == 24
    stored = AppPassword.objects.get(user=user)
    assert stored.name == "ERP sync"
    assert stored.password_hash == hashlib.sha256(secret.replace(" ", "").encode()).hexdigest()


def test_command_for_an_unknown_account_fails():
    with pytest.raises(CommandError, match="No account"):
        call_command("create_app_password", "nobody@example.com", "x", stdout=StringIO())


def test_command_refuses_a_blank_name():
    UserFactory(email="shop@example.com")
    with pytest.raises(CommandError):
        call_command("create_app_password", "shop@example.com", "  ", stdout=StringIO())
    assert AppPassword.objects.count() == 0


def test_basic_auth_with_an_app_password(api_client):
    UserFactory(email="shop@example.com")
    secret = make_password()
    for sent in (secret, secret.replace(" ", "")):
        response = api_client.get(STORE, HTTP_AUTHORIZATION=basic("SHOP@example.com", sent))
        assert response.status_code == 200
        assert response.json() == {"user": "shop@example.com"}
    stored = AppPassword.objects.get()
    assert stored.last_used_at is not None
    assert stored.last_used_ip == "127.0.0.1"


@pytest.mark.parametrize("wrong", ["account", "other-user", "garbage"])
def test_basic_auth_refusals(api_client, wrong):
    UserFactory(email="shop@example.com")
    UserFactory(email="other@example.com")
    secret = make_password()
    credentials = {
        "account": basic("shop@example.com", PASSWORD),  # the account password is not accepted
        "other-user": basic("other@example.com", secret),
        "garbage": basic("shop@example.com", "abcd efgh ijkl mnop qrst uvwx"),
    }[wrong]
    response = api_client.get(STORE, HTTP_AUTHORIZATION=credentials)
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Basic")


def test_inactive_account_app_password_is_refused(api_client):
    user = UserFactory(email="shop@example.com")
    secret = make_password()
    User.objects.filter(pk=user.pk).update(is_active=False)
    response = api_client.get(STORE, HTTP_AUTHORIZATION=basic("shop@example.com", secret))
    assert response.status_code == 401
