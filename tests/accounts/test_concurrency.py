import pytest
from rest_framework.test import APIClient

from accounts import services
from accounts.models import ApiKey, LoginLimit
from common.errors import Unauthorized
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.concurrency import race

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def test_two_refreshes_racing_with_one_token_succeed_once():
    user = UserFactory()
    refresh = services.issue_tokens(user)["refresh_token"]
    results = race(*[lambda: services.token_refresh(refresh_token=refresh)] * 4)
    winners = [r for r in results if isinstance(r, dict)]
    losers = [r for r in results if isinstance(r, Unauthorized)]
    assert len(winners) == 1, results
    assert len(losers) == 3, results


def test_the_same_idempotency_key_racing_runs_once():
    reseller = ResellerFactory()
    token = services.issue_tokens(reseller)["access_token"]

    def create():
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_IDEMPOTENCY_KEY="race")
        return client.post("/api/v1/portal/api-keys", {"name": "CI"}, format="json").status_code

    statuses = race(create, create, create)
    assert ApiKey.objects.filter(user=reseller).count() == 1
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}, statuses


def test_the_api_key_limit_holds_under_a_race(settings):
    settings.API_KEYS_PER_ACCOUNT = 1
    reseller = ResellerFactory()
    results = race(*[lambda: services.api_key_create(user=reseller, name="x")] * 3)
    assert ApiKey.objects.filter(user=reseller).count() == 1
    assert sum(isinstance(r, tuple) for r in results) == 1


def test_parallel_wrong_passwords_cannot_slip_past_the_log_in_limit(settings):
    """Each attempt is counted before its password is checked, under a row lock: of 16
    parallel guesses at most the limit are checked, the rest are refused as locked."""
    settings.LOGIN_FAILURE_LIMIT = 5
    UserFactory(email="target@example.com")

    def guess(n: int):
        def call():
            client = APIClient()
            response = client.post(
                "/api/v1/portal/auth/login",
                {"email": "target@example.com", "password": f"guess-{n}"},
                format="json",
                REMOTE_ADDR=f"10.9.0.{n + 1}",
            )
            return response.status_code

        return call

    statuses = race(*[guess(n) for n in range(16)])
    assert statuses.count(401) <= 5, statuses
    assert set(statuses) == {401, 429}, statuses
    assert LoginLimit.objects.get(kind="account").locked_until is not None
