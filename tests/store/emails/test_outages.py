"""The e-mail routes with Redis (cache and broker) out: staff get their answers, the e-mails
wait in the outbox and the log says queued, and each leaves once the broker is back."""

from __future__ import annotations

import pytest
from django.core import mail
from django.utils import timezone

from common import breaker, outbox
from common.models import OutboxMessage
from config.celery import app as celery_app
from store.emails.models import SentEmail
from tests.outages.conftest import redis_broker, redis_cache, redis_server, timed  # noqa: F401
from tests.outages.test_broker_outage import names, work_off
from tests.store.emails.helpers import EMAILS, SETTINGS, TEMPLATES, TEST, an_order, log

pytestmark = pytest.mark.django_db

REQUEST_BOUND = 2.5


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_e_mails_wait_for_the_broker_and_leave_once(
    redis_broker,  # noqa: F811
    staff,
    django_capture_on_commit_callbacks,
    kind,
):
    order = an_order("processing")
    redis_broker.stop() if kind == "stopped" else redis_broker.freeze()
    with timed() as elapsed, django_capture_on_commit_callbacks(execute=True):
        tested = staff.post(TEST, {"type": "order_completed", "to": "me@example.com"})
        resent = staff.post(f"{EMAILS}/resend/{order.pk}", {})
    assert elapsed() < 2 * REQUEST_BOUND
    assert (tested.status_code, resent.status_code) == (202, 202), (tested.content, resent.content)
    assert mail.outbox == []
    assert log() == [
        ("order_completed", "me@example.com", "queued"),
        ("order_confirmation", "ana@example.com", "queued"),
    ]
    assert OutboxMessage.objects.filter(task="store_emails.send", sent_at__isnull=True).count() == 2

    if kind == "stopped":
        redis_broker.start()
    else:
        redis_broker.thaw()
    breaker.reset_all()
    OutboxMessage.objects.update(due_at=timezone.now())
    assert outbox.drain() == 2
    ran = work_off()
    assert names(ran) == ["store_emails.send", "store_emails.send"]
    assert sorted(m.to[0] for m in mail.outbox) == ["ana@example.com", "me@example.com"]
    assert set(SentEmail.objects.values_list("status", flat=True)) == {"sent"}
    # Published again (a publisher that died before marking them sent): still once each.
    for name, args, kwargs in ran:
        celery_app.tasks[name].apply_async(args=args, kwargs=kwargs)
    assert names(work_off()) == ["store_emails.send", "store_emails.send"]
    assert len(mail.outbox) == 2


@pytest.mark.parametrize("kind", ["stopped", "frozen"])
def test_the_routes_answer_while_the_cache_is_out(redis_cache, staff, kind):  # noqa: F811
    assert staff.get(SETTINGS).status_code == 200  # the settings are cached now
    redis_cache.stop() if kind == "stopped" else redis_cache.freeze()
    calls = [
        lambda: staff.get(TEMPLATES),
        lambda: staff.get(f"{TEMPLATES}/order_completed/preview"),
        lambda: staff.patch(f"{TEMPLATES}/order_completed", {"subject": "Done {{ order.number }}"}),
        lambda: staff.patch(SETTINGS, {"sender_name": "Lamp Shop"}),
        lambda: staff.post(TEST, {"type": "order_completed", "to": "me@example.com"}),
    ]
    for call in calls:
        with timed() as elapsed:
            response = call()
        assert response.status_code in (200, 202), response.content
        assert elapsed() < REQUEST_BOUND
    assert staff.get(SETTINGS).json()["sender_name"] == "Lamp Shop"
    assert SentEmail.objects.get().subject == "[Test] Done EC-123456"
