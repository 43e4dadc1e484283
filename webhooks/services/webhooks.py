"""Webhooks: validating, creating (an account's, the store's), changing, rotating the
secret of and deleting one.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from common import net
from common.errors import ServiceError, ValidationFailed
from webhooks import signing
from webhooks.models import Event, Scope, StoreEvent, Webhook
from webhooks.services._shared import _cancel_pending
from webhooks.services.subscriptions import store_events_changed

MAX_WEBHOOKS_PER_ACCOUNT = 10  # spec: Limits
MAX_STORE_WEBHOOKS = 20  # the store's webhooks, all staff together


def event_names(scope: str = Scope.PORTAL) -> list[str]:
    """The events a webhook of `scope` may subscribe to, in their documented order."""
    return list(StoreEvent.values if scope == Scope.STORE else Event.values)


def normalise_events(events: Any, *, scope: str = Scope.PORTAL) -> list[str]:
    """A non-empty subset of the scope's event names (the portal's five, the store's nine), in
    their documented order, without repeats."""
    if not isinstance(events, list) or not events:
        raise ValidationFailed({"events": ["Give a non-empty list of event names."]})
    allowed = event_names(scope)
    unknown = [e for e in events if not isinstance(e, str) or e not in allowed]
    if unknown:
        names = ", ".join(allowed)
        shown = ", ".join(repr(e)[:80] for e in unknown[:5])
        raise ValidationFailed(
            {"events": [f"Unknown event name(s): {shown}. Choose from: {names}."]}
        )
    return [name for name in allowed if name in events]


def check_url(url: str) -> str:
    """The URL, normalised, if deliveries may go to it now; else a 422 naming the reason."""
    try:
        return net.check_url(url).url
    except net.UrlNotAllowed as exc:
        raise ValidationFailed({"url": [str(exc)]}, code="url_not_allowed") from None


def _clean_description(description: str | None) -> str:
    description = (description or "").strip()
    if len(description) > 255:
        raise ValidationFailed({"description": ["At most 255 characters."]})
    return description


def webhook_create(
    *, account: User, url: str, events: list[str], description: str | None = ""
) -> Webhook:
    """A new webhook with a fresh secret (the caller shows the secret this once)."""
    events = normalise_events(events)
    description = _clean_description(description)
    url = check_url(url)  # resolves the host: done before any lock is taken
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=account.pk).first()  # serialises the count
        if Webhook.objects.filter(account=account).count() >= MAX_WEBHOOKS_PER_ACCOUNT:
            raise ServiceError(
                f"An account may have at most {MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one "
                "before adding another.",
                code="webhook_limit_reached",
            )
        return Webhook.objects.create(
            account=account,
            url=url,
            events=events,
            description=description,
            secret=signing.new_secret(),
        )


def store_webhook_create(
    *,
    url: str,
    events: list[str],
    description: str | None = "",
    is_active: bool = True,
    created_by: User | None = None,
) -> Webhook:
    """A store webhook (no owning account) with a fresh secret; the caller shows it once.

    Validated first (events, description, the URL and every address its host resolves to);
    at most MAX_STORE_WEBHOOKS (400 `webhook_limit_reached`).
    """
    events = normalise_events(events, scope=Scope.STORE)
    description = _clean_description(description)
    url = check_url(url)  # resolves the host: done before any lock is taken
    with transaction.atomic():
        # Lock the store's webhooks: two creates near the limit count one after the other.
        existing = list(
            Webhook.objects.select_for_update().filter(scope=Scope.STORE).values_list("pk")
        )
        if len(existing) >= MAX_STORE_WEBHOOKS:
            raise ServiceError(
                f"The store may have at most {MAX_STORE_WEBHOOKS} webhooks; delete one before "
                "adding another.",
                code="webhook_limit_reached",
            )
        webhook = Webhook.objects.create(
            scope=Scope.STORE,
            account=None,
            created_by=created_by if getattr(created_by, "pk", None) else None,
            url=url,
            events=events,
            description=description,
            is_active=bool(is_active),
            disabled_reason="" if is_active else "Created inactive.",
            disabled_at=None if is_active else timezone.now(),
            secret=signing.new_secret(),
        )
        store_events_changed()
    return webhook


_UNSET: Any = object()


def webhook_update(
    *,
    webhook: Webhook,
    url: str = _UNSET,
    events: list[str] = _UNSET,
    is_active: bool = _UNSET,
    description: str | None = _UNSET,
    disabled_reason: str = "Disabled by the account.",
) -> Webhook:
    """Change any of url, events, is_active and description; all are validated first.

    Turning a webhook off gives up its pending deliveries; turning it on clears the reason it
    was disabled for and its failure clock.
    """
    changes: dict[str, Any] = {}
    if events is not _UNSET:
        changes["events"] = normalise_events(events, scope=webhook.scope)
    if description is not _UNSET:
        changes["description"] = _clean_description(description)
    if url is not _UNSET:
        changes["url"] = check_url(url)
    now = timezone.now()
    with transaction.atomic():
        locked = Webhook.objects.select_for_update(no_key=True).get(pk=webhook.pk)
        if is_active is not _UNSET and is_active != locked.is_active:
            if is_active:
                changes.update(
                    is_active=True, disabled_reason="", disabled_at=None, failing_since=None
                )
            else:
                changes.update(is_active=False, disabled_reason=disabled_reason, disabled_at=now)
                _cancel_pending(locked)
        if "url" in changes and changes["url"] != locked.url:
            changes["failing_since"] = None  # a new receiver starts with a clean record
        for field, value in changes.items():
            setattr(locked, field, value)
        if changes:
            locked.save(update_fields=[*changes, "updated_at"])
            if locked.scope == Scope.STORE:
                store_events_changed()
    return locked


def webhook_rotate_secret(*, webhook: Webhook) -> Webhook:
    """A new secret, in force at once: every attempt from now on, retries included, is signed
    with it (a GitHub-style signature header carries one signature, so there is no overlap)."""
    with transaction.atomic():
        locked = Webhook.objects.select_for_update(no_key=True).get(pk=webhook.pk)
        locked.secret = signing.new_secret()
        locked.save(update_fields=["secret", "updated_at"])
    return locked


def webhook_delete(*, webhook: Webhook) -> None:
    """Delete the webhook with its deliveries and delivery logs."""
    with transaction.atomic():
        # Lock the webhook first, like every other writer, so the cascade cannot deadlock
        # with a worker recording an attempt.
        Webhook.objects.select_for_update(no_key=True).filter(pk=webhook.pk).first()
        webhook.delete()
        if webhook.scope == Scope.STORE:
            store_events_changed()
