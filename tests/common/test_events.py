"""common.events.send_after_commit: a signal goes out after the commit of the change that
sends it, never for a rolled-back one, to every receiver even when one of them fails."""

import logging

import pytest
from django.db import transaction
from django.dispatch import Signal

from common.events import send_after_commit

pytestmark = pytest.mark.django_db

EVENT = {"invoice_id": 7, "gross_total": "12.40"}


@pytest.fixture
def signal():
    return Signal()


@pytest.fixture
def received(signal):
    calls = []

    def receiver(sender, **kwargs):
        calls.append((sender, kwargs))

    signal.connect(receiver, weak=False)
    return calls


def test_the_signal_waits_for_the_commit(signal, received, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        send_after_commit(signal, sender=str, event=EVENT)
        assert received == []
    assert received == [(str, {"signal": signal, "event": EVENT})]


def test_a_rolled_back_change_sends_nothing(signal, received, django_capture_on_commit_callbacks):
    def change_then_fail():
        with transaction.atomic():
            send_after_commit(signal, sender=str, event=EVENT)
            raise RuntimeError("rolled back")

    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(RuntimeError):
        change_then_fail()
    assert callbacks == []
    assert received == []


def test_a_failing_receiver_is_logged_and_the_others_still_receive(
    signal, received, django_capture_on_commit_callbacks, caplog
):
    def broken(sender, **kwargs):
        raise ValueError("the listener broke")

    signal.connect(broken, weak=False)
    with (
        caplog.at_level(logging.ERROR, logger="common.events"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        send_after_commit(signal, sender=str, event=EVENT)
    assert received == [(str, {"signal": signal, "event": EVENT})]
    (record,) = [r for r in caplog.records if r.name == "common.events"]
    assert "failed: the listener broke" in record.getMessage()
    assert record.exc_info[0] is ValueError
