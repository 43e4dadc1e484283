from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiKey, User
from common import idempotency
from common.models import IdempotencyRecord
from common.tasks import purge_idempotency_keys
from tests.accounts.factories import PASSWORD, ResellerFactory, UserFactory

pytestmark = pytest.mark.django_db

KEYS = "/api/v1/portal/api-keys"
REGISTER = "/api/v1/portal/auth/register"


def post_key(client, key, body):
    return client.post(KEYS, body, format="json", HTTP_IDEMPOTENCY_KEY=key)


def test_a_repeat_gets_the_stored_answer_and_runs_once(client_for):
    client = client_for(ResellerFactory())
    first = post_key(client, "req-1", {"name": "CI"})
    second = post_key(client, "req-1", {"name": "CI"})
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()  # the same key, shown again to the retrying client
    assert second["Idempotent-Replayed"] == "true"
    assert not first.has_header("Idempotent-Replayed")
    assert ApiKey.objects.count() == 1


def test_body_formatting_does_not_matter(client_for):
    client = client_for(ResellerFactory())
    client.post(
        KEYS, data='{"name": "CI"}', content_type="application/json", HTTP_IDEMPOTENCY_KEY="k"
    )
    again = client.post(
        KEYS, data='{ "name" :"CI" }', content_type="application/json", HTTP_IDEMPOTENCY_KEY="k"
    )
    assert again["Idempotent-Replayed"] == "true"
    assert ApiKey.objects.count() == 1


def test_the_same_key_with_another_body_is_422(client_for):
    client = client_for(ResellerFactory())
    post_key(client, "req-1", {"name": "CI"})
    response = post_key(client, "req-1", {"name": "Other"})
    assert response.status_code == 422
    assert response.json()["code"] == "idempotency_key_reused"
    assert ApiKey.objects.count() == 1


def test_keys_belong_to_one_account(client_for):
    one, two = client_for(ResellerFactory()), client_for(ResellerFactory())
    a = post_key(one, "shared", {"name": "CI"})
    b = post_key(two, "shared", {"name": "CI"})
    assert a.status_code == b.status_code == 201
    assert a.json()["id"] != b.json()["id"]
    assert ApiKey.objects.count() == 2


def test_a_refused_request_is_not_stored(client_for, settings):
    settings.API_KEYS_PER_ACCOUNT = 1
    reseller = ResellerFactory()
    client = client_for(reseller)
    post_key(client, "first", {"name": "one"})
    refused = post_key(client, "second", {"name": "two"})
    assert refused.status_code == 400
    ApiKey.objects.filter(user=reseller).delete()
    retried = post_key(client, "second", {"name": "two"})
    assert retried.status_code == 201
    assert not retried.has_header("Idempotent-Replayed")


def test_anonymous_posts_are_scoped_by_address(api_client, django_capture_on_commit_callbacks):
    body = {"email": "new@example.com", "password": PASSWORD, "name": "New"}
    with django_capture_on_commit_callbacks(execute=True):
        first = api_client.post(REGISTER, body, format="json", HTTP_IDEMPOTENCY_KEY="signup")
        second = api_client.post(REGISTER, body, format="json", HTTP_IDEMPOTENCY_KEY="signup")
    assert first.status_code == second.status_code == 201
    assert second["Idempotent-Replayed"] == "true"
    assert User.objects.filter(email="new@example.com").count() == 1
    # Without the key, the rule applies: the address is taken.
    assert api_client.post(REGISTER, body, format="json").status_code == 400


def test_a_key_still_in_progress_is_409(client_for):
    user = ResellerFactory()
    client = client_for(user)
    IdempotencyRecord.objects.create(
        scope=f"account:{user.pk}",
        key_hash=idempotency._hash("busy"),
        fingerprint=idempotency.fingerprint("POST", KEYS, b'{"name":"CI"}'),
    )
    response = post_key(client, "busy", {"name": "CI"})
    assert response.status_code == 409
    assert response.json()["code"] == "idempotency_key_in_use"
    assert ApiKey.objects.count() == 0


def test_an_abandoned_in_progress_key_can_be_taken_over(client_for):
    user = ResellerFactory()
    client = client_for(user)
    old = timezone.now() - timedelta(minutes=10)
    IdempotencyRecord.objects.create(
        scope=f"account:{user.pk}",
        key_hash=idempotency._hash("stuck"),
        fingerprint=idempotency.fingerprint("POST", KEYS, b'{"name":"CI"}'),
        created_at=old,
        locked_at=old,
    )
    assert post_key(client, "stuck", {"name": "CI"}).status_code == 201


def forced_client(user) -> APIClient:
    """Authenticated without a token, so that travelling in time does not expire it."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_keys_are_kept_24_hours():
    client = forced_client(ResellerFactory())
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        post_key(client, "daily", {"name": "CI"})
        traveller.shift(timedelta(hours=23))
        assert post_key(client, "daily", {"name": "CI"})["Idempotent-Replayed"] == "true"
        traveller.shift(timedelta(hours=2))
        fresh = post_key(client, "daily", {"name": "CI"})
    assert fresh.status_code == 201
    assert not fresh.has_header("Idempotent-Replayed")
    assert ApiKey.objects.count() == 2


def test_purge_task_deletes_expired_keys():
    client = forced_client(ResellerFactory())
    with time_machine.travel(timezone.now() - timedelta(hours=25), tick=False):
        post_key(client, "old", {"name": "old"})
    post_key(client, "new", {"name": "new"})
    assert purge_idempotency_keys.delay().get() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_stored_answers_are_encrypted(client_for):
    client = client_for(ResellerFactory())
    raw_key = post_key(client, "secret-bearing", {"name": "CI"}).json()["key"]
    record = IdempotencyRecord.objects.get()
    assert raw_key.encode() not in bytes(record.response_body)
    assert record.key_hash != "secret-bearing"


def test_an_invalid_key_header_is_400(client_for):
    client = client_for(ResellerFactory())
    response = post_key(client, "x" * 256, {"name": "CI"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_idempotency_key"
    assert ApiKey.objects.count() == 0


def test_other_methods_ignore_the_header(client_for):
    client = client_for(ResellerFactory())
    client.get(KEYS, HTTP_IDEMPOTENCY_KEY="get")
    assert IdempotencyRecord.objects.count() == 0


def test_an_unauthenticated_post_never_claims_a_key(api_client):
    UserFactory()
    response = api_client.post(KEYS, {"name": "x"}, format="json", HTTP_IDEMPOTENCY_KEY="k")
    assert response.status_code == 401
    assert IdempotencyRecord.objects.count() == 0
