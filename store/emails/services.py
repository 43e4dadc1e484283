"""E-mail use cases: edit and reset templates, the settings, previews, and sending.

Every e-mail the store sends goes through `email_send`: the type's template (customised or
default) is rendered now, in the caller's transaction, a SentEmail row is written (queued) and
the `store_emails.send` task is enqueued through the outbox (common.outbox), so it is published
after the commit, a rolled-back change sends nothing, and a broker outage delays the message
instead of failing the request. The task marks the row sent or failed. A status move's e-mail
is one step later: the move enqueues `store_emails.order_status`, whose task calls
`email_send` after the commit (order_status_email_send, once per status change) and sends the
message itself once its own commit is done, the `store_emails.send` row standing by in the
outbox in case that fails.

A customised template that fails with real data (a saved template is checked against the
sample data, which real data may still surprise) does not lose the message: it is rendered
with the default template instead and the row's note says so.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import smtplib

from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from common import markers, outbox
from common.compiled import CompiledQuery, insert
from common.errors import NotFound
from store.common.accounts import logged_in
from store.common.errors import invalid_params, rule_broken
from store.customers.models import Customer
from store.emails import rendering, selectors, types
from store.emails.models import EmailStatus, EmailTemplate, SentEmail
from store.emails.rendering import Rendered, TemplateProblem
from store.emails.types import EmailType
from store.orders.choices import HistoryField, OrderSource
from store.orders.models import Order, OrderStatusChange
from store.settings import selectors as store_settings
from store.settings import services as settings_services

logger = logging.getLogger(__name__)

SEND_TASK = "store_emails.send"
TEMPLATE_CODE = "invalid_template"


# --- Rendering --------------------------------------------------------------------------------


def _render_sources(
    email_type: EmailType, srcs: dict, custom: dict, context: dict, *, strict: bool = False
) -> Rendered:
    subject = rendering.subject_line(
        rendering.render_part(srcs["subject"], context, html=False, strict=strict)
    )
    body = rendering.render_part(srcs["body_html"], context, html=True, strict=strict)
    page = rendering.in_layout(types.layout(), body, subject=subject, store=context["store"])
    if custom["body_html"] and not custom["body_text"]:
        text = rendering.html_to_text(body)
    else:
        text = rendering.render_part(srcs["body_text"], context, html=False, strict=strict)
    return Rendered(subject=subject, html=page, text=text)


def render(email_type: EmailType, context: dict, row: EmailTemplate | None) -> tuple[Rendered, str]:
    """The e-mail of `email_type` for `context`, and a note when the customised template
    failed and the default was used."""
    custom = selectors.customised_parts(row)
    try:
        return _render_sources(email_type, selectors.sources(email_type, row), custom, context), ""
    except TemplateProblem as exc:
        if not any(custom.values()):
            raise
        logger.warning("customised %s template failed (%s); sending the default", row, exc)
        defaults = selectors.sources(email_type, None)
        plain = dict.fromkeys(types.PARTS, False)
        note = f"The customised template failed ({exc.message}); sent with the default."
        return _render_sources(email_type, defaults, plain, context), note[:500]


# --- Templates ----------------------------------------------------------------------------------


def template_check(*, email_type: EmailType, fields: dict) -> dict:
    """The parts given in `fields` (subject, body_html, body_text: a template, or empty/None
    for the default), each checked (store.emails.rendering.check); 400 `invalid_template`
    naming every bad part. Writes nothing."""
    config = store_settings.get_all()
    sample = selectors.sample_context(email_type, config=config)
    names = email_type.names()
    problems: dict[str, str] = {}
    cleaned: dict[str, str] = {}
    for part in types.PARTS:
        if part not in fields:
            continue
        source = fields[part] or ""
        cleaned[part] = source
        if not source.strip():
            cleaned[part] = ""
            continue
        try:
            rendering.check(source, names=names, sample=sample, html=part == "body_html")
            if part == "subject":
                rendering.subject_line(rendering.render_part(source, sample, html=False))
        except TemplateProblem as exc:
            problems[part] = exc.message
    if problems:
        raise invalid_params(problems, code=TEMPLATE_CODE)
    return cleaned


def _template_for_update(slug: str) -> EmailTemplate:
    EmailTemplate.objects.get_or_create(type=slug)
    return EmailTemplate.objects.select_for_update().get(type=slug)


@transaction.atomic
def template_update(*, type: str, fields: dict, user=None) -> EmailTemplate:
    """Set some parts of a type's template (an empty part: back to its default) and/or
    whether the type is sent (`enabled`); a bad template refuses the whole request."""
    email_type = selectors.email_type_get(type)
    cleaned = template_check(email_type=email_type, fields=fields)
    if "enabled" in fields:
        _enabled_set(email_type, bool(fields["enabled"]), user=user)
    row = _template_for_update(email_type.slug)
    if cleaned:
        for part, source in cleaned.items():
            setattr(row, part, source)
        row.updated_by = logged_in(user)
        row.save()
    return row


@transaction.atomic
def template_reset(*, type: str, user=None) -> EmailTemplate:
    """Back to the default subject and bodies (whether it is sent stays as it was)."""
    email_type = selectors.email_type_get(type)
    row = _template_for_update(email_type.slug)
    row.subject = row.body_html = row.body_text = ""
    row.updated_by = logged_in(user)
    row.save()
    return row


def templates_ensure(**_kwargs) -> int:
    """A row for every type (the admin lists them all); run after migrate. Answers how many
    were made."""
    have = set(EmailTemplate.objects.values_list("type", flat=True))
    missing = [EmailTemplate(type=slug) for slug in types.SLUGS if slug not in have]
    EmailTemplate.objects.bulk_create(missing, ignore_conflicts=True)
    return len(missing)


# --- Settings -----------------------------------------------------------------------------------


def _enabled_set(email_type: EmailType, enabled: bool, *, user=None) -> None:
    if not enabled and not email_type.can_disable:
        raise invalid_params(
            {"enabled": [f"The {email_type.slug} e-mail cannot be switched off."]},
            code="email_type_required",
        )
    disabled = set(store_settings.get_section("emails")["disabled_types"])
    disabled = disabled - {email_type.slug} if enabled else disabled | {email_type.slug}
    settings_services.settings_update(
        section="emails", values={"disabled_types": sorted(disabled)}, user=user
    )


def _disabled_types(enabled_types) -> list[str]:
    if not isinstance(enabled_types, list) or not all(isinstance(s, str) for s in enabled_types):
        raise invalid_params({"enabled_types": ["A list of e-mail types."]})
    unknown = sorted(set(enabled_types) - set(types.SLUGS))
    if unknown:
        raise invalid_params(
            {"enabled_types": [f"Unknown e-mail type(s): {', '.join(unknown)[:200]}."]}
        )
    required = sorted(
        slug for slug, t in types.TYPES.items() if not t.can_disable and slug not in enabled_types
    )
    if required:
        raise invalid_params(
            {"enabled_types": [f"Cannot be switched off: {', '.join(required)}."]},
            code="email_type_required",
        )
    return sorted(set(types.SLUGS) - set(enabled_types))


@transaction.atomic
def email_settings_update(*, values: dict, user=None, replace: bool = False) -> dict:
    """Set the sender and the enabled types (`replace`: what is not given goes back to its
    default). Refused whole on any bad value."""
    stored = {key: values[key] for key in ("sender_name", "sender_address") if key in values}
    if "enabled_types" in values:
        stored["disabled_types"] = _disabled_types(values["enabled_types"])
    if replace:
        settings_services.settings_replace(section="emails", values=stored, user=user)
    elif stored:
        settings_services.settings_update(section="emails", values=stored, user=user)
    return selectors.email_settings()


# --- Previews -----------------------------------------------------------------------------------


def email_preview(*, type: str, order_id: int | None = None, draft: dict | None = None) -> dict:
    """The e-mail rendered with the sample data or an order's, with the saved template or
    the parts of `draft` (checked as a save checks them; nothing is saved)."""
    email_type = selectors.email_type_get(type)
    config = store_settings.get_all()
    row = selectors.template_row(email_type.slug)
    if draft:
        cleaned = template_check(email_type=email_type, fields=draft)
        row = EmailTemplate(
            type=email_type.slug,
            **{part: getattr(row, part) if row else "" for part in types.PARTS},
        )
        for part, source in cleaned.items():
            setattr(row, part, source)
    context = _context(email_type, order_id=order_id, config=config)
    rendered, note = render(email_type, context, row)
    return {
        "type": email_type.slug,
        "subject": rendered.subject,
        "html": rendered.html,
        "text": rendered.text,
        "order_id": order_id,
        "sample": order_id is None,
        "note": note,
    }


def _context(email_type: EmailType, *, order_id: int | None, config: dict) -> dict:
    if order_id is None:
        return selectors.sample_context(email_type, config=config)
    if not email_type.about_order:
        raise invalid_params({"order_id": [f"The {email_type.slug} e-mail is not about an order."]})
    order = selectors.order_for_email(order_id)
    return selectors.order_context(order, config=config, payment_due_at=_payment_due_at(order))


def _payment_due_at(order: Order):
    """The deadline of an unpaid checkout's order (the checkout keeps it), or None."""
    checkout = getattr(order, "checkout", None) if order.placed_by_checkout else None
    return getattr(checkout, "payment_due_at", None)


# --- Sending ------------------------------------------------------------------------------------


def email_send(
    *,
    email_type: EmailType,
    to: str,
    context: dict,
    config: dict,
    order: Order | None = None,
    note: str = "",
    subject_prefix: str = "",
    deliver_here: bool = False,
) -> SentEmail:
    """Render, record (queued) and enqueue one e-mail; it leaves after the commit. An e-mail
    that cannot be rendered at all is recorded as failed (the change it follows stands).
    `deliver_here` (a worker's task that recorded it): sent by this process after the commit,
    the outbox row standing by in case it fails (common.outbox.enqueue's `here`)."""
    try:
        rendered, fallback = render(email_type, context, selectors.template_row(email_type.slug))
    except TemplateProblem as exc:
        logger.error("the %s e-mail could not be rendered: %s", email_type.slug, exc.message)
        return SentEmail.objects.create(
            type=email_type.slug,
            recipient=to[:254],
            subject=f"{subject_prefix}({email_type.title})"[:255],
            order=order,
            status=EmailStatus.FAILED,
            error=f"Not rendered: {exc.message}"[:500],
            note=note[:500],
            failed_at=timezone.now(),
        )
    subject = f"{subject_prefix}{rendered.subject}"
    email = insert(  # compiled once (common.compiled): every e-mail records one
        SentEmail(
            type=email_type.slug,
            recipient=to[:254],
            subject=subject[:255],
            order=order,
            note=" ".join(filter(None, [note, fallback]))[:500],
        )
    )
    outbox.enqueue(
        SEND_TASK,
        kwargs={
            "email_id": email.pk,
            "sender": selectors.sender(config),
            "to": to,
            "subject": subject,
            "text": rendered.text,
            "html": rendered.html,
        },
        here=deliver_here,
    )
    return email


def order_email_send(
    *,
    email_type: EmailType,
    order: Order,
    config: dict,
    payment_due_at=None,
    force: bool = False,
    note: str = "",
    subject_prefix: str = "",
    to: str | None = None,
    deliver_here: bool = False,
) -> SentEmail | None:
    """One order e-mail to its recipient (the customer, or the store's address); None when
    the type is off (unless `force`) or there is nobody to send it to."""
    if not force and not selectors.is_enabled(email_type, config):
        return None
    if to is None:
        if email_type.recipient == types.STORE:
            to = config["general"]["store_email"]
        else:
            to = selectors.recipient_of(order)
    if not to:
        return None
    context = selectors.order_context(order, config=config, payment_due_at=payment_due_at)
    return email_send(
        email_type=email_type,
        to=to,
        context=context,
        config=config,
        order=order,
        note=note,
        subject_prefix=subject_prefix,
        deliver_here=deliver_here,
    )


def order_placed_emails(*, order_id: int, payment_due_at=None) -> list[SentEmail]:
    """The checkout placed an order: the shopper's confirmation and the store's notice."""
    config = store_settings.get_all()
    order = selectors.order_for_email(order_id)
    sent = []
    for slug in ("order_confirmation", "new_order"):
        email = order_email_send(
            email_type=types.TYPES[slug],
            order=order,
            config=config,
            payment_due_at=payment_due_at,
        )
        if email is not None:
            sent.append(email)
    return sent


STATUS_TASK = "store_emails.order_status"


def order_status_email(*, order: Order, old: str, new: str, source: str, change=None) -> bool:
    """An order moved to `new`: its status e-mail, if the move has one and the type is on,
    is enqueued (answers whether). The `store_emails.order_status` task renders and records
    it after the commit (order_status_email_send): the move does not wait for the rendering.
    The checkout's own moves (placing, paying) are covered by the order confirmation."""
    email_type = types.BY_STATUS.get(new)
    if email_type is None or old == new or source == OrderSource.CHECKOUT or change is None:
        return False
    if not selectors.is_enabled(email_type, store_settings.get_all()):
        return False
    outbox.enqueue(STATUS_TASK, kwargs={"change_id": change.pk})
    return True


# The status e-mail task's first read: compiled once per connection (common.compiled).
_STATUS_CHANGE = CompiledQuery(
    lambda change_id: OrderStatusChange.objects.filter(
        pk=change_id, field=HistoryField.STATUS
    ).values_list("order_id", "to_value"),
    (-1,),
    (-2,),
)


@transaction.atomic
def order_status_email_send(*, change_id: int) -> SentEmail | None:
    """Render, record and enqueue the e-mail of one status change (the task's work), once: a
    redelivered task finds the marker and does nothing. The order's data are read now, with
    the status of the change; None when the change has no e-mail, the type is off now, the
    order has nobody to send it to or it is gone."""
    found = _STATUS_CHANGE.rows(change_id)
    if not found:
        return None
    order_id: int = found[0][0]
    to_value: str = found[0][1]
    email_type = types.BY_STATUS.get(to_value)
    if email_type is None:
        return None
    if not markers.mark_done(f"store-status-email:{change_id}"):
        logger.info("status e-mail of change %s already recorded; skipping", change_id)
        return None
    config = store_settings.get_all()
    try:
        order = selectors.order_for_email(order_id)
    except NotFound:
        return None
    order.status = to_value  # the e-mail tells of this move, whatever came after
    return order_email_send(
        email_type=email_type,
        order=order,
        config=config,
        payment_due_at=_payment_due_at(order),
        deliver_here=True,  # this is the worker's task: no second task to send it
    )


@transaction.atomic
def order_email_resend(*, order_id: int, type: str = "order_confirmation", user=None) -> SentEmail:
    """Staff send an order e-mail again (also a type that is off): to the order's customer,
    or the store's address for the store's notice."""
    email_type = selectors.email_type_get(type)
    if not email_type.about_order:
        raise invalid_params({"type": [f"The {email_type.slug} e-mail is not about an order."]})
    config = store_settings.get_all()
    order = selectors.order_for_email(order_id)
    email = order_email_send(
        email_type=email_type,
        order=order,
        config=config,
        payment_due_at=_payment_due_at(order),
        force=True,
        note=f"Resent by {logged_in(user) or 'staff'}.",
    )
    if email is None:
        if email_type.recipient == types.STORE:
            raise rule_broken(
                "The store has no e-mail address (settings: general.store_email).",
                code="no_store_email",
                status=409,
            )
        raise rule_broken(
            f"Order {order.order_number} has no e-mail address.",
            code="order_has_no_email",
            status=409,
        )
    return email


@transaction.atomic
def email_test(*, type: str, to: str, order_id: int | None = None, user=None) -> SentEmail:
    """A test of `type` to `to`, with the sample data or an order's ("[Test]" subject)."""
    email_type = selectors.email_type_get(type)
    config = store_settings.get_all()
    context = _context(email_type, order_id=order_id, config=config)
    order = Order.objects.filter(pk=order_id).first() if order_id is not None else None
    return email_send(
        email_type=email_type,
        to=to,
        context=context,
        config=config,
        order=order,
        note=f"Test sent by {logged_in(user) or 'staff'}.",
        subject_prefix="[Test] ",
    )


# --- Account e-mails (sent by the accounts app, through common.email's hooks) -------------------

_checkout_signup: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "store_checkout_signup", default=False
)


@contextlib.contextmanager
def checkout_signup():
    """Around the checkout's account creation: its verification e-mail is the store's
    customer_new_account e-mail."""
    token = _checkout_signup.set(True)
    try:
        yield
    finally:
        _checkout_signup.reset(token)


ACCOUNT_TEMPLATES = {
    "accounts/verify_email": "customer_verify_email",
    "accounts/password_reset": "customer_password_reset",
}


def account_email(*, template: str, to: list[str], context: dict) -> bool:
    """The accounts app's e-mail to a store customer's account, as the store's e-mail (True:
    sent here). Accounts that are not store customers keep the accounts app's own e-mail."""
    slug = ACCOUNT_TEMPLATES.get(template)
    user = context.get("user")
    if slug is None or user is None or len(to) != 1:
        return False
    if template == "accounts/verify_email" and _checkout_signup.get():
        slug = "customer_new_account"
    elif not Customer.objects.filter(user_id=user.pk).exists():
        return False
    config = store_settings.get_all()
    email_send(
        email_type=types.TYPES[slug],
        to=to[0],
        context=selectors.account_context(
            user=user,
            link=context.get("link", ""),
            token=context.get("token", ""),
            lifetime=context.get("lifetime", ""),
            config=config,
        ),
        config=config,
    )
    return True


# --- Delivery (the task) ------------------------------------------------------------------------

TRANSIENT = (smtplib.SMTPException, OSError)


def email_deliver(
    *, email_id: int, sender: str, to: str, subject: str, text: str, html: str
) -> bool:
    """Send one recorded e-mail once (a redelivered task finds the marker, written before
    sending, and does nothing); answers whether it was sent now. A failure marks the row
    failed with the error and is raised again (the task retries transient ones)."""
    marker = f"store-email:{email_id}"
    if not markers.mark_done(marker):
        logger.info("store e-mail %s already sent; skipping redelivery", email_id)
        return False
    message = EmailMultiAlternatives(subject, text, sender, [to])
    message.attach_alternative(html, "text/html")
    try:
        message.send()
    except Exception as exc:
        markers.unmark(marker)
        SentEmail.objects.filter(pk=email_id).exclude(status=EmailStatus.SENT).update(
            status=EmailStatus.FAILED,
            error=f"{exc.__class__.__name__}: {exc}"[:500],
            attempts=F("attempts") + 1,
            failed_at=timezone.now(),
        )
        raise
    SentEmail.objects.filter(pk=email_id).update(
        status=EmailStatus.SENT, error="", attempts=F("attempts") + 1, sent_at=timezone.now()
    )
    return True
