"""The portal licence list streams: same bytes as the DRF serializer, queries per chunk only,
errors before the first byte in the usual shapes, and searches scoped to the caller."""

import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.renderers import JSONRenderer

from licensing import selectors
from licensing.api import rows
from licensing.api.serializers import LicenseSerializer
from licensing.models import Activation, License, LicenseSource, LicenseStatus, Tier
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import ActivationFactory, LicenseFactory, ProductFactory

pytestmark = pytest.mark.django_db

LICENSES = "/api/v1/portal/licenses"
MOMENT = datetime(2026, 6, 1, 12, 0, 0, 123456, tzinfo=UTC)


def streamed(response) -> bytes:
    assert response.streaming, "the licence list answers a streamed body"
    return b"".join(response.streaming_content)


def every_variant(owner):
    """Licences covering every field variant the list shows."""
    plain = ProductFactory(name="Theme", slug="theme")
    odd = ProductFactory(name="Zoë ✓ “quoted” \\ line\u2028sep", slug="odd")
    customer = ClientFactory(owner=owner)
    made = []
    for n, (status, source, tier, expires) in enumerate(
        [
            (LicenseStatus.ACTIVE, LicenseSource.INDIVIDUAL, Tier.STARTER, timedelta(days=30)),
            (LicenseStatus.ACTIVE, LicenseSource.NFR, Tier.BUSINESS, -timedelta(days=1)),
            (LicenseStatus.REVOKED, LicenseSource.BULK_PACK, Tier.STARTER, timedelta(days=3)),
            (LicenseStatus.EXPIRED, LicenseSource.COMMITMENT, Tier.BUSINESS, -timedelta(9)),
            (LicenseStatus.ACTIVE, LicenseSource.BULK_PACK, Tier.BUSINESS, timedelta(0)),
        ]
    ):
        made.append(
            LicenseFactory(
                owner=owner,
                product=odd if n % 2 else plain,
                status=status,
                source=source,
                tier=tier,
                expires_at=MOMENT + expires,
                customer=customer if n % 2 == 0 else None,
                # whole seconds and microseconds; two licences created at the same instant
                created_at=MOMENT - timedelta(hours=min(n, 3), microseconds=n % 2),
            )
        )
    ActivationFactory(license=made[0], domain="b.example.com", activated_at=MOMENT)
    ActivationFactory(license=made[0], domain="a.example.com", activated_at=MOMENT)
    ActivationFactory(
        license=made[2], domain="xn--zo-cja.example", activated_at=MOMENT.replace(microsecond=0)
    )
    ActivationFactory(
        license=made[3],
        domain="localhost",
        is_development=True,
        activated_at=MOMENT.replace(microsecond=500000),
    )
    return made


def old_bytes(owner, now, **filters) -> bytes:
    """What the list answered before it streamed: the nested DRF serializers, rendered."""
    licences = selectors.license_list(user=owner, **filters)
    data = LicenseSerializer(licences, many=True, context={"now": now}).data
    return JSONRenderer().render(data)


@time_machine.travel(MOMENT, tick=False)
@pytest.mark.parametrize("chunk_size", [1, 2, 500])
@pytest.mark.parametrize(
    "filters", [{}, {"status": "expired"}, {"source": "bulk_pack"}, {"search": "example"}]
)
def test_the_stream_has_the_serializers_bytes(filters, chunk_size):
    owner = ResellerFactory()
    every_variant(owner)
    LicenseFactory()  # someone else's
    now = MOMENT
    chunks = selectors.license_list_chunks(user=owner, now=now, chunk_size=chunk_size, **filters)
    new = b"".join(rows.json_array(chunks))
    assert new == old_bytes(owner, now, **filters)
    assert new != b"[]"


ENTRIES = pytest.mark.postgresql_only  # entries written by the database


@ENTRIES
@time_machine.travel(MOMENT, tick=False)
@pytest.mark.parametrize("chunk_size", [1, 2, 500])
@pytest.mark.parametrize(
    "filters", [{}, {"status": "expired"}, {"source": "bulk_pack"}, {"search": "example"}]
)
def test_entries_written_by_postgresql_are_the_serializers_json(filters, chunk_size):
    owner = ResellerFactory()
    every_variant(owner)
    LicenseFactory()  # someone else's
    chunks = selectors.license_list_chunks(
        user=owner, now=MOMENT, chunk_size=chunk_size, entries=True, **filters
    )
    new = b"".join(rows.json_array(chunks, entries=True))
    assert json.loads(new) == json.loads(old_bytes(owner, MOMENT, **filters))
    assert new != b"[]"


def test_the_view_streams_the_serializers_answer(client_for):
    owner = ResellerFactory()
    every_variant(owner)
    with time_machine.travel(MOMENT, tick=False):
        response = client_for(owner).get(LICENSES)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/json"
        body, old = streamed(response), old_bytes(owner, timezone.now())
        assert json.loads(body) == json.loads(old)
        if not selectors.license_list_entries():
            assert body == old  # the Python rows: byte for byte


def test_an_empty_list_is_an_empty_array(client_for):
    response = client_for(UserFactory()).get(LICENSES)
    assert streamed(response) == b"[]"


def count_queries(client, path) -> int:
    with CaptureQueriesContext(connection) as context:
        response = client.get(path)
        assert response.status_code == 200
        body = streamed(response)
    assert body.startswith(b"[")
    return len(context.captured_queries)


@pytest.mark.parametrize("path", [LICENSES, f"{LICENSES}?search=example"])
def test_queries_grow_with_the_chunks_not_the_rows(client_for, monkeypatch, path):
    monkeypatch.setattr(selectors, "LICENSE_LIST_CHUNK", 10)
    owner = ResellerFactory()
    client = client_for(owner)

    def add(count):
        for _ in range(count):
            ActivationFactory(license=LicenseFactory(owner=owner))

    # A chunk is one query on PostgreSQL (activations as arrays), two elsewhere (licences, then
    # their activations); an empty look-up is one query.
    per_chunk = 1 if connection.vendor == "postgresql" else 2
    add(3)
    small = count_queries(client, path)  # the caller, then one chunk
    assert small == 1 + per_chunk
    add(27)
    large = count_queries(client, path)  # 30 rows: three full chunks and an empty look-up
    assert large - small == 2 * per_chunk + 1
    add(1)
    # 31: a fourth chunk of one row where the empty look-up was
    assert count_queries(client, path) == large - 1 + per_chunk


def test_refusals_before_the_stream_keep_their_shapes(api_client, client_for):
    response = api_client.get(LICENSES)
    assert response.status_code == 401
    assert "detail" in response.json()
    response = client_for(UserFactory()).get(LICENSES, {"status": "deleted"})
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"status"}


def test_search_is_scoped_to_the_callers_licences(client_for):
    owner, other = ResellerFactory(), ResellerFactory()
    mine = LicenseFactory(owner=owner, license_key="EMP-AAAA-BBBB-CCCC-DDDD-EEEE")
    theirs = LicenseFactory(owner=other, license_key="EMP-AAAA-BBBB-CCCC-DDDD-FFFF")
    ActivationFactory(license=mine, domain="shop.example.org")
    ActivationFactory(license=theirs, domain="shop.example.org")
    ActivationFactory(license=theirs, domain="only-theirs.example.org")
    client = client_for(owner)

    def ids(search):
        return [
            item["id"] for item in json.loads(streamed(client.get(LICENSES, {"search": search})))
        ]

    assert ids("aaaa-bbbb") == [mine.pk]
    assert ids("shop.example") == [mine.pk]
    assert ids("only-theirs") == []


@pytest.mark.postgresql_only  # trigram GIN indexes
@pytest.mark.slow(reason="100,000 licences and activations: on 10,000 the planner skips an index")
def test_search_uses_the_trigram_indexes_on_postgresql():
    owner, other = ResellerFactory(), ResellerFactory()
    product = ProductFactory()
    with connection.cursor() as cursor:
        # Enough rows (written by SQL: fast) for the planner to weigh the indexes.
        cursor.execute(
            "INSERT INTO licensing_license (owner_id, product_id, license_key, tier, status,"
            " source, expires_at, created_at, updated_at)"
            " SELECT CASE WHEN g %% 4 = 0 THEN %s ELSE %s END, %s, 'EMP-' || md5(g::text),"
            " 'starter', 'active', 'individual', now() + interval '1 year',"
            " now() - g * interval '1 second', now() FROM generate_series(1, 100000) g",
            [other.pk, owner.pk, product.pk],
        )
        cursor.execute(
            "INSERT INTO licensing_activation (license_id, domain, is_development, activated_at)"
            " SELECT id, 'shop-' || id || '.example.com', false, now() FROM licensing_license"
        )
        cursor.execute("ANALYZE licensing_license, licensing_activation")
        cursor.execute("SET LOCAL enable_seqscan = off")
    key = License.objects.filter(owner=owner).values_list("license_key", flat=True).first()
    domain = Activation.objects.filter(license__owner=other).values_list("domain", flat=True)[0]
    for search in (key[6:16].lower(), domain[:-4]):
        plan = selectors.license_list(user=owner, search=search).explain()
        assert "licensing_license_owner_key_trgm" in plan, plan
        assert "licensing_activation_domain_trgm" in plan, plan
    # The other account's domain is not the caller's: nothing found.
    assert list(selectors.license_list(user=owner, search=domain)) == []
    assert [lic.license_key for lic in selectors.license_list(user=owner, search=key)] == [key]


@pytest.mark.parametrize("entries", [False, True])
def test_the_brackets_travel_with_the_first_and_last_chunks(entries):
    """One piece per chunk, the brackets included: a list of one chunk is one write."""
    if entries:
        chunks = [[('{"id":1}',)], [('{"id":2}',), ('{"id":3}',)], [], [('{"id":4}',)]]
    else:
        owner = ResellerFactory()
        for _ in range(4):
            LicenseFactory(owner=owner)
        chunks = list(selectors.license_list_chunks(user=owner, now=MOMENT, chunk_size=2))
    pieces = list(rows.json_array(chunks, entries=entries))
    assert len(pieces) == len([chunk for chunk in chunks if chunk])
    assert pieces[0].startswith(b"[")
    assert pieces[-1].endswith(b"]")
    assert len(json.loads(b"".join(pieces))) == 4
    assert list(rows.json_array([chunks[0]], entries=entries)) == [b"[" + pieces[0][1:] + b"]"]
    assert list(rows.json_array([], entries=entries)) == [b"[]"]


def test_an_unfiltered_list_and_its_filters_answer_alike(client_for):
    owner = ResellerFactory()
    LicenseFactory(owner=owner)
    revoked = LicenseFactory(owner=owner, status=LicenseStatus.REVOKED)
    client = client_for(owner)
    assert len(json.loads(streamed(client.get(LICENSES)))) == 2
    only = json.loads(streamed(client.get(LICENSES, {"status": "revoked"})))
    assert [entry["id"] for entry in only] == [revoked.pk]
    refused = client.get(LICENSES, {"status": "nope"})
    assert refused.status_code == 422
