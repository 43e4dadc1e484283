import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse
from rest_framework_simplejwt.token_blacklist.models import BlacklistedToken

from accounts import services
from accounts.models import ApiKey, AppPassword
from tests.accounts.factories import ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "model", ["accounts_user", "accounts_apikey", "accounts_apppassword", "licensing_product"]
)
def test_changelists_and_add_pages_render(admin_client, model):
    ResellerFactory()
    assert admin_client.get(reverse(f"admin:{model}_changelist") + "?q=example").status_code == 200
    assert admin_client.get(reverse(f"admin:{model}_add")).status_code == 200


def test_adding_an_api_key_in_the_admin_shows_it_once(admin_client):
    reseller = ResellerFactory()
    response = admin_client.post(
        reverse("admin:accounts_apikey_add"),
        {"user": reseller.pk, "name": "From admin"},
        follow=True,
    )
    assert response.status_code == 200
    key = ApiKey.objects.get(user=reseller)
    shown = [str(m) for m in get_messages(response.wsgi_request)]
    raw = re.search(r"(emp_\w{8}_[\w-]+)", " ".join(shown)).group(1)
    assert services.api_key_authenticate(raw) == key


def test_the_admin_cannot_give_a_developer_an_api_key(admin_client):
    developer = UserFactory()
    response = admin_client.post(
        reverse("admin:accounts_apikey_add"), {"user": developer.pk, "name": "Nope"}
    )
    assert response.status_code == 200  # the form again, with the error
    assert "reseller and agency" in response.content.decode()
    assert not ApiKey.objects.exists()


def test_adding_an_app_password_in_the_admin(admin_client):
    user = UserFactory()
    response = admin_client.post(
        reverse("admin:accounts_apppassword_add"), {"user": user.pk, "name": "Sync"}, follow=True
    )
    assert response.status_code == 200
    assert AppPassword.objects.filter(user=user, name="Sync").count() == 1


def test_end_sessions_action_revokes_refresh_tokens(admin_client):
    user = UserFactory()
    services.issue_tokens(user)
    services.issue_tokens(user)
    admin_client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "end_sessions", "_selected_action": [user.pk]},
    )
    assert BlacklistedToken.objects.filter(token__user=user).count() == 2


def test_mark_verified_action(admin_client):
    user = UserFactory(email_verified=False)
    admin_client.post(
        reverse("admin:accounts_user_changelist"),
        {"action": "mark_verified", "_selected_action": [user.pk]},
    )
    user.refresh_from_db()
    assert user.email_verified is True


def test_creating_a_user_in_the_admin(admin_client):
    response = admin_client.post(
        reverse("admin:accounts_user_add"),
        {
            "email": "Staff.Made@Example.com",
            "name": "Staff Made",
            "type": "agency",
            "usable_password": "true",
            "password1": "Admin-Made-Pass-99",
            "password2": "Admin-Made-Pass-99",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    from accounts.models import User

    made = User.objects.get(email="staff.made@example.com")
    assert made.type == "agency"
