"""Sub-clients added in the admin go through client_create (the API's rules)."""

import pytest
from django.urls import reverse

from clients.models import Client
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.admin_forms import csrf_client, form_errors, form_values

pytestmark = pytest.mark.django_db


def test_only_partners_get_clients_and_addresses_stay_unique():
    browser = csrf_client(UserFactory(is_staff=True, is_superuser=True))
    url = reverse("admin:clients_client_add")
    developer, reseller = UserFactory(), ResellerFactory()
    values = form_values(browser, url)
    values.update(owner=str(developer.pk), name="Ana", email="Ana@Example.com", company="")
    response = browser.post(url, values)
    assert response.status_code == 200
    assert "Only reseller and agency accounts have clients." in response.content.decode()
    values.update(owner=str(reseller.pk))
    response = browser.post(url, values)
    assert response.status_code == 302, form_errors(response)
    client = Client.objects.get()
    assert (client.owner, client.email) == (reseller, "ana@example.com")
    response = browser.post(url, {**values, "name": "Other"})
    assert response.status_code == 200
    assert "A client with this e-mail address already exists." in response.content.decode()
    assert Client.objects.count() == 1
    change = browser.get(reverse("admin:clients_client_change", args=[client.pk]))
    assert 'name="owner"' not in change.content.decode()  # a client stays with its owner
