import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from accounts.models import AccountType, OneTimeToken, User
from tests.accounts.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

REGISTER = "/api/v1/portal/auth/register"
VERIFY = "/api/v1/portal/auth/verify-email"
RESEND = "/api/v1/portal/auth/resend-verification"
FORGOT = "/api/v1/portal/auth/forgot-password"
RESET = "/api/v1/portal/auth/reset-password"
LOGIN = "/api/v1/portal/auth/login"
REFRESH = "/api/v1/portal/auth/refresh"


def token_from_last_mail() -> str:
    match = re.search(r"token=([\w-]+)", mail.outbox[-1].body)
    assert match, mail.outbox[-1].body
    return match.group(1)


def register(client, django_capture_on_commit_callbacks, **overrides):
    body = {"email": "new@example.com", "password": PASSWORD, "name": "New Person", **overrides}
    with django_capture_on_commit_callbacks(execute=True):
        return client.post(REGISTER, body, format="json")


def test_register_creates_an_unverified_developer_and_mails_a_token(
    api_client, django_capture_on_commit_callbacks
):
    response = register(api_client, django_capture_on_commit_callbacks)
    assert response.status_code == 201
    user = User.objects.get(email="new@example.com")
    assert response.json()["user"]["id"] == user.pk
    assert response.json()["user"]["type"] == "developer"
    assert response.json()["user"]["email_verified"] is False
    assert user.type == AccountType.DEVELOPER
    assert user.email_verified is False
    assert user.check_password(PASSWORD)
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == ["new@example.com"]
    token = token_from_last_mail()
    # Only a hash of the token is stored.
    assert not OneTimeToken.objects.filter(token_hash=token).exists()
    assert OneTimeToken.objects.filter(user=user, purpose="verify_email").count() == 1


def test_unverified_account_logs_in_after_verifying(api_client, django_capture_on_commit_callbacks):
    register(api_client, django_capture_on_commit_callbacks)
    login = {"email": "new@example.com", "password": PASSWORD}
    assert api_client.post(LOGIN, login, format="json").status_code == 403
    response = api_client.post(VERIFY, {"token": token_from_last_mail()}, format="json")
    assert response.status_code == 200
    assert User.objects.get(email="new@example.com").email_verified is True
    assert api_client.post(LOGIN, login, format="json").status_code == 200


def test_verification_token_works_once(api_client, django_capture_on_commit_callbacks):
    register(api_client, django_capture_on_commit_callbacks)
    token = token_from_last_mail()
    assert api_client.post(VERIFY, {"token": token}, format="json").status_code == 200
    again = api_client.post(VERIFY, {"token": token}, format="json")
    assert again.status_code == 400
    assert again.json()["code"] == "invalid_token"


def test_verification_token_expires(api_client, django_capture_on_commit_callbacks):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        register(api_client, django_capture_on_commit_callbacks)
        traveller.shift(timedelta(hours=49))
        response = api_client.post(VERIFY, {"token": token_from_last_mail()}, format="json")
    assert response.status_code == 400
    assert User.objects.get(email="new@example.com").email_verified is False


def test_unknown_verification_token_is_400(api_client):
    assert api_client.post(VERIFY, {"token": "nope"}, format="json").status_code == 400


def test_duplicate_e_mail_is_400_and_changes_nothing(
    api_client, django_capture_on_commit_callbacks
):
    existing = UserFactory(email="taken@example.com", name="Original")
    response = register(api_client, django_capture_on_commit_callbacks, email="TAKEN@example.com")
    assert response.status_code == 400
    assert response.json()["code"] == "email_taken"
    assert User.objects.filter(email="taken@example.com").count() == 1
    existing.refresh_from_db()
    assert existing.name == "Original"
    assert mail.outbox == []


@pytest.mark.parametrize("password", ["short", "12345678901", "password123", "new@example.com"])
def test_weak_password_is_422_and_creates_nothing(
    api_client, django_capture_on_commit_callbacks, password
):
    response = register(api_client, django_capture_on_commit_callbacks, password=password)
    assert response.status_code == 422
    assert response.json()["errors"]["password"]
    assert not User.objects.filter(email="new@example.com").exists()
    assert mail.outbox == []


@pytest.mark.parametrize(
    ("field", "value"), [("email", "not-an-email"), ("name", ""), ("name", "x" * 151)]
)
def test_invalid_fields_are_422(api_client, django_capture_on_commit_callbacks, field, value):
    response = register(api_client, django_capture_on_commit_callbacks, **{field: value})
    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert User.objects.count() == 0


def test_resend_answers_the_same_whether_or_not_the_account_exists(
    api_client, django_capture_on_commit_callbacks
):
    UserFactory(email="unverified@example.com", email_verified=False)
    UserFactory(email="verified@example.com")
    answers = []
    for email in ("unverified@example.com", "verified@example.com", "nobody@example.com"):
        with django_capture_on_commit_callbacks(execute=True):
            response = api_client.post(RESEND, {"email": email}, format="json")
        answers.append((response.status_code, response.json()))
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0] == 200
    assert [m.to for m in mail.outbox] == [["unverified@example.com"]]


def test_resend_makes_the_previous_token_stop_working(
    api_client, django_capture_on_commit_callbacks
):
    register(api_client, django_capture_on_commit_callbacks)
    old = token_from_last_mail()
    with django_capture_on_commit_callbacks(execute=True):
        api_client.post(RESEND, {"email": "new@example.com"}, format="json")
    new = token_from_last_mail()
    assert api_client.post(VERIFY, {"token": old}, format="json").status_code == 400
    assert api_client.post(VERIFY, {"token": new}, format="json").status_code == 200


def test_forgot_answers_the_same_whether_or_not_the_account_exists(
    api_client, django_capture_on_commit_callbacks
):
    UserFactory(email="dev@example.com")
    answers = []
    for email in ("dev@example.com", "nobody@example.com"):
        with django_capture_on_commit_callbacks(execute=True):
            response = api_client.post(FORGOT, {"email": email}, format="json")
        answers.append((response.status_code, response.json()))
    assert answers[0] == answers[1]
    assert answers[0][0] == 200
    assert [m.to for m in mail.outbox] == [["dev@example.com"]]


def forgot(client, capture, email="dev@example.com") -> str:
    with capture(execute=True):
        client.post(FORGOT, {"email": email}, format="json")
    return token_from_last_mail()


def test_reset_password_sets_the_password_and_ends_sessions(
    api_client, django_capture_on_commit_callbacks
):
    UserFactory(email="dev@example.com", email_verified=False)
    # An old session, from before the reset (verified accounts only log in; make it so first).
    User.objects.filter(email="dev@example.com").update(email_verified=True)
    old = api_client.post(LOGIN, {"email": "dev@example.com", "password": PASSWORD}, format="json")
    User.objects.filter(email="dev@example.com").update(email_verified=False)
    token = forgot(api_client, django_capture_on_commit_callbacks)

    response = api_client.post(
        RESET, {"token": token, "password": "Brand-New-Secret-42"}, format="json"
    )
    assert response.status_code == 200
    user = User.objects.get(email="dev@example.com")
    assert user.check_password("Brand-New-Secret-42")
    assert user.email_verified is True  # the link reached the inbox
    refresh = api_client.post(
        REFRESH, {"refresh_token": old.json()["refresh_token"]}, format="json"
    )
    assert refresh.status_code == 401
    new_login = {"email": "dev@example.com", "password": "Brand-New-Secret-42"}
    assert api_client.post(LOGIN, new_login, format="json").status_code == 200
    # The token is spent.
    again = api_client.post(
        RESET, {"token": token, "password": "Other-New-Secret-43"}, format="json"
    )
    assert again.status_code == 400


def test_weak_reset_password_is_422_and_keeps_the_token(
    api_client, django_capture_on_commit_callbacks
):
    UserFactory(email="dev@example.com")
    token = forgot(api_client, django_capture_on_commit_callbacks)
    weak = api_client.post(RESET, {"token": token, "password": "123"}, format="json")
    assert weak.status_code == 422
    assert "password" in weak.json()["errors"]
    assert User.objects.get(email="dev@example.com").check_password(PASSWORD)
    ok = api_client.post(RESET, {"token": token, "password": "Brand-New-Secret-42"}, format="json")
    assert ok.status_code == 200


def test_reset_token_expires(api_client, django_capture_on_commit_callbacks):
    UserFactory(email="dev@example.com")
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        token = forgot(api_client, django_capture_on_commit_callbacks)
        traveller.shift(timedelta(minutes=61))
        response = api_client.post(
            RESET, {"token": token, "password": "Brand-New-Secret-42"}, format="json"
        )
    assert response.status_code == 400
    assert User.objects.get(email="dev@example.com").check_password(PASSWORD)


def test_verify_token_cannot_reset_a_password(api_client, django_capture_on_commit_callbacks):
    register(api_client, django_capture_on_commit_callbacks)
    response = api_client.post(
        RESET, {"token": token_from_last_mail(), "password": "Brand-New-Secret-42"}, format="json"
    )
    assert response.status_code == 400
