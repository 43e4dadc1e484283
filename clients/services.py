"""Sub-client use cases (resellers and agencies)."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from accounts.models import User, normalize_email
from clients.models import Client
from common.errors import Forbidden, NotFound, ServiceError, ValidationFailed
from licensing.services.lifecycle import client_licenses_end


def _require_partner(user: User) -> None:
    if not user.is_partner:
        raise Forbidden(
            "Only reseller and agency accounts have clients.", code="partner_account_required"
        )


def _email_taken() -> ServiceError:
    return ServiceError("A client with this e-mail address already exists.", code="email_taken")


def client_check(*, owner: User, email: str, name: str) -> None:
    """Refuse what client_create would refuse, creating nothing (the admin's form)."""
    _require_partner(owner)
    errors = {}
    if not normalize_email(email):
        errors["email"] = ["This field may not be blank."]
    if not (name or "").strip():
        errors["name"] = ["This field may not be blank."]
    if errors:
        raise ValidationFailed(errors)
    if Client.objects.filter(email=normalize_email(email)).exists():
        raise _email_taken()


def client_create(*, owner: User, email: str, name: str, company: str | None = None) -> Client:
    """A new client of `owner`. The e-mail is unique system-wide, whoever owns the client."""
    client_check(owner=owner, email=email, name=name)
    email, name = normalize_email(email), (name or "").strip()
    company = (company or "").strip()
    try:
        with transaction.atomic():
            return Client.objects.create(owner=owner, email=email, name=name, company=company)
    except IntegrityError:  # a concurrent create of the same address won
        raise _email_taken() from None


def client_get(*, owner: User, client_id: int) -> Client:
    client = Client.objects.filter(owner=owner, pk=client_id).first()
    if client is None:
        raise NotFound("Client not found.", code="client_not_found")
    return client


def client_delete(*, owner: User, client_id: int) -> int:
    """Revoke and deactivate every licence of the client (each emits license.revoked), end the
    subscriptions bought for it, then delete it. Irreversible. Answers how many licences were
    revoked; the revoked licences stay on the owner's account, without a customer."""
    with transaction.atomic():
        client = Client.objects.select_for_update().filter(owner=owner, pk=client_id).first()
        if client is None:
            raise NotFound("Client not found.", code="client_not_found")
        revoked = client_licenses_end(client=client)
        client.delete()
    return revoked
