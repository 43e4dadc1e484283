"""Real concurrent transactions (PostgreSQL): simultaneous saves of one layout version, or
simultaneous creations of one page's layout, let exactly one win; the others answer 409."""

import pytest

from common.errors import ServiceError
from store.common.capabilities import EDIT_POSTS
from tests.accounts.factories import UserFactory
from tests.concurrency import race
from tests.fixtures.store import grant
from theme.builder import services
from theme.builder.models import Layout, LayoutTemplate

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgresql_only]


def heading(text: str) -> list:
    return [{"type": "heading", "settings": {"text": text}}]


def test_simultaneous_saves_of_one_version_let_one_win():
    user = grant(UserFactory(), EDIT_POSTS)
    services.layout_save(page_id=1, blocks=heading("v1"), status="draft", version=0, user=user)
    results = race(
        *[
            lambda n=n: services.layout_save(
                page_id=1, blocks=heading(f"writer {n}"), status="draft", version=1, user=user
            )
            for n in range(4)
        ]
    )
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refusals} == {"version_conflict"}, results
    assert len(refusals) == 3
    assert Layout.objects.get().version == 2


def test_simultaneous_creations_of_one_layout_make_one_row():
    user = grant(UserFactory(), EDIT_POSTS)
    results = race(
        *[
            lambda n=n: services.layout_save(
                page_id=2, blocks=heading(f"writer {n}"), status="draft", version=0, user=user
            )
            for n in range(4)
        ]
    )
    refusals = [r for r in results if isinstance(r, ServiceError)]
    assert {r.code for r in refusals} == {"version_conflict"}, results
    assert len(refusals) == 3
    assert Layout.objects.count() == 1


def test_simultaneous_template_updates_of_one_version_let_one_win():
    template = services.template_create(fields={"name": "T", "blocks": []})
    results = race(
        *[
            lambda n=n: services.template_update(
                template_id=template.pk, fields={"name": f"T{n}"}, version=1
            )
            for n in range(4)
        ]
    )
    assert len([r for r in results if isinstance(r, ServiceError)]) == 3, results
    assert LayoutTemplate.objects.get().version == 2
