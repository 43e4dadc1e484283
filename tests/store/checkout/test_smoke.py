import pytest

from tests.store.checkout.helpers import complete, started

pytestmark = pytest.mark.django_db


def test_smoke(anon, shop, django_capture_on_commit_callbacks):
    body = started(anon, shop)
    print(body)
    with django_capture_on_commit_callbacks(execute=True):
        response = complete(anon, body["id"])
    print(response.json())
    assert response.status_code == 200
