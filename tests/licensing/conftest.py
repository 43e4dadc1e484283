import pytest

from common.events import events_published


@pytest.fixture
def events():
    """Every event published while the test runs, as (account, event, data)."""
    seen: list[tuple] = []

    def receiver(sender, events, **kwargs):
        seen.extend((item.account, item.event, item.data) for item in events)

    events_published.connect(receiver, weak=False, dispatch_uid="test-events")
    yield seen
    events_published.disconnect(dispatch_uid="test-events")
