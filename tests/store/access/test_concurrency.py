"""Real concurrent transactions (PostgreSQL): two administrators demoting each other at once
cannot leave the store without one."""

import pytest

from common.errors import ServiceError
from store.access import selectors, services
from store.common.capabilities import MANAGE_OPTIONS, has_capability
from tests.concurrency import race
from tests.store.access.helpers import store_administrator

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


@pytest.mark.parametrize("how", ["remove", "patch"])
def test_two_administrators_removing_each_other_leave_one(how):
    first, second = store_administrator(), store_administrator()

    def demote(actor, target):
        if how == "remove":
            return lambda: services.manager_remove(actor=actor, user_id=target.pk)
        return lambda: services.manager_update(actor=actor, user_id=target.pk, fields={"roles": []})

    results = race(demote(first, second), demote(second, first))
    # The second to take the lock is no administrator any more: refused for lacking
    # manage_options (its capabilities are read under the lock), else as the last one.
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert len(refusals) == 1, results
    assert refusals[0].code in ("capability_not_held", "last_administrator"), results
    left = [
        user
        for user in (first, second)
        if has_capability(type(user).objects.get(pk=user.pk), MANAGE_OPTIONS)
    ]
    assert len(left) == 1
    assert selectors.manager_state(left[0])["roles"] == ["store_administrator"]
