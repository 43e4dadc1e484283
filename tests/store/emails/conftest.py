import pytest
from rest_framework.test import APIClient

from tests.fixtures.store import basic_auth
from tests.store.emails.helpers import mailer


@pytest.fixture
def mail_manager(db):
    return mailer()


@pytest.fixture
def staff(mail_manager) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=basic_auth(mail_manager))
    return client
