"""The category mapping: GET, PUT (the whole mapping), PATCH (entries; null removes),
validated (unknown store category named, bad values named, nothing changed on refusal)."""

from __future__ import annotations

import pytest

from store.feeds.models import CategoryMapping
from tests.fixtures.store import error
from tests.store.catalog.factories import CategoryFactory
from tests.store.feeds.conftest import MAPPING

pytestmark = pytest.mark.django_db


def test_put_sets_the_whole_mapping_and_get_reads_it(staff):
    lamps, mugs = CategoryFactory(name="Lamps"), CategoryFactory(name="Mugs")
    response = staff.put(
        f"{MAPPING}/google",
        {"mapping": {str(lamps.pk): "594", str(mugs.pk): "Home & Garden >  Kitchen & Dining"}},
        format="json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["marketplace"] == "google"
    assert body["mapping"] == {
        str(lamps.pk): "594",
        str(mugs.pk): "Home & Garden > Kitchen & Dining",  # spacing normalised
    }
    assert {e["category_name"] for e in body["entries"]} == {"Lamps", "Mugs"}
    assert staff.get(f"{MAPPING}/google").json()["mapping"] == body["mapping"]
    assert staff.get(f"{MAPPING}/skroutz").json()["mapping"] == {}
    replaced = staff.put(f"{MAPPING}/google", {"mapping": {str(mugs.pk): "666"}}, format="json")
    assert replaced.json()["mapping"] == {str(mugs.pk): "666"}


def test_patch_merges_and_null_removes(staff):
    lamps, mugs = CategoryFactory(), CategoryFactory()
    staff.put(f"{MAPPING}/skroutz", {"mapping": {str(lamps.pk): "Σπίτι > Φωτισμός"}}, format="json")
    response = staff.patch(
        f"{MAPPING}/skroutz",
        {"mapping": {str(mugs.pk): "Σπίτι > Κουζίνα", str(lamps.pk): None}},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["mapping"] == {str(mugs.pk): "Σπίτι > Κουζίνα"}


@pytest.mark.parametrize(
    ("mapping", "param", "code"),
    [
        ({"999999": "594"}, "999999", "category_not_found"),
        ({"abc": "594"}, "abc", "invalid_param"),
        ({"0": "594"}, "0", "invalid_param"),
        ({"{lamps}": ""}, "{lamps}", "invalid_param"),
        ({"{lamps}": "A >  > B"}, "{lamps}", "invalid_param"),
        ({"{lamps}": "x" * 501}, "{lamps}", "invalid_param"),
        ({"{lamps}": "tab\there"}, "{lamps}", "invalid_param"),
        ({"{lamps}": "0123"}, "{lamps}", "invalid_param"),
    ],
)
def test_bad_entries_are_refused_naming_them_and_change_nothing(staff, mapping, param, code):
    lamps = CategoryFactory()
    staff.put(f"{MAPPING}/google", {"mapping": {str(lamps.pk): "594"}}, format="json")
    mapping = {k.replace("{lamps}", str(lamps.pk)): v for k, v in mapping.items()}
    param = param.replace("{lamps}", str(lamps.pk))
    # a good entry beside the bad one is not written either (one transaction)
    other = CategoryFactory()
    response = staff.put(
        f"{MAPPING}/google", {"mapping": {**mapping, str(other.pk): "1"}}, format="json"
    )
    body = error(response, 400, code)
    assert param in body["data"]["params"]
    assert dict(CategoryMapping.objects.values_list("category_id", "value")) == {lamps.pk: "594"}


@pytest.mark.parametrize(
    "body",
    [{}, {"mapping": []}, {"mapping": "x"}, {"mapping": {"1": 5.5}}, {"mapping": {"1": ["a"]}}],
)
def test_wrong_shapes_are_refused(staff, body):
    CategoryFactory(pk=1)
    response = staff.put(f"{MAPPING}/google", body, format="json")
    assert response.status_code == 400, response.content
    assert not CategoryMapping.objects.exists()


def test_a_null_in_put_is_refused(staff):
    lamps = CategoryFactory()
    error(staff.put(f"{MAPPING}/google", {"mapping": {str(lamps.pk): None}}, format="json"), 400)


def test_mapping_query_count_does_not_grow(staff, django_assert_max_num_queries):
    categories = [CategoryFactory() for _ in range(3)]
    staff.put(f"{MAPPING}/google", {"mapping": {str(c.pk): "1" for c in categories}}, format="json")
    with django_assert_max_num_queries(8) as few:
        assert staff.get(f"{MAPPING}/google").status_code == 200
    more = [CategoryFactory() for _ in range(20)]
    with django_assert_max_num_queries(12):
        put = staff.put(
            f"{MAPPING}/google", {"mapping": {str(c.pk): "2" for c in more}}, format="json"
        )
    assert put.status_code == 200
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(staff.get(f"{MAPPING}/google").json()["entries"]) == 20
