"""What running on several machines needs: queues by kind, one beat in the
whole deployment, pooled database connections (a psycopg pool, or PgBouncer without
server-side cursors) and uploads in a shared S3-compatible store instead of local disk."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from datetime import UTC, datetime

import pytest
import time_machine

from config.celery import app
from tests.fixtures.db import current_database_url
from tests.fixtures.waiting import wait_until

NEEDS_REDIS = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")
NEEDS_PG = pytest.mark.postgresql_only


# --- Queues ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("webhooks.deliver", "webhooks"),
        ("webhooks.dispatch_due", "webhooks"),
        ("store_orders.release_stock", "stock"),
        ("store_checkout.expire_holds", "stock"),
        ("common.send_email", "email"),
        ("store_emails.order_status", "email"),
        ("erp_invoicing.transmit", "erp"),
        ("erp_core.run_job", "erp"),
        ("common.drain_outbox", "celery"),
        ("licensing.expire_licenses", "celery"),
    ],
)
def test_tasks_go_to_the_queue_of_their_kind(task, queue):
    assert app.amqp.router.route({}, task)["queue"].name == queue


def test_a_worker_without_q_consumes_every_queue():
    assert set(app.amqp.queues) == {"celery", "webhooks", "stock", "email", "erp"}


# --- One beat ----------------------------------------------------------------------------------


@pytest.fixture
def lock_key():
    return f"emporion:test:beat:{uuid.uuid4().hex}"


def _lock(key, seconds=30):
    from common.beat import BeatLock

    return BeatLock(os.environ["REDIS_URL"], seconds=seconds, key=key)


@NEEDS_REDIS
def test_only_one_beat_holds_the_schedule_lock(lock_key):
    first, second = _lock(lock_key), _lock(lock_key)
    assert first.hold() is True
    assert second.hold() is False
    assert first.hold() is True  # renewed by its holder
    first.release()
    assert second.hold() is True
    assert first.hold() is False


@NEEDS_REDIS
def test_a_dead_holders_lock_is_taken_over_when_its_lease_ends(lock_key):
    from common.beat import BeatLock

    dead = BeatLock(os.environ["REDIS_URL"], seconds=0.3, key=lock_key)
    survivor = _lock(lock_key)
    assert dead.hold() is True
    assert survivor.hold() is False
    # the holder stopped renewing: Redis ends its lease
    wait_until(survivor.hold, timeout=3, what="the dead holder's lease to end")
    assert dead.hold() is False


@NEEDS_REDIS
def test_only_the_holding_scheduler_sends_the_periodic_tasks(lock_key):
    from common import beat

    class Scheduler(beat.LockedScheduler):
        pass

    Scheduler.lock_key = lock_key
    sent: dict[str, list[str]] = {"a": [], "b": []}

    def scheduler(name):
        s = Scheduler(app=app, schedule={}, lazy=False)
        s.apply_entry = lambda entry, producer=None: sent[name].append(entry.name)
        s.merge_inplace({"test-often": {"task": "common.ping", "schedule": 0.01}})
        return s

    # the schedulers' clock moves by hand (the lease, in Redis, is far longer than the test)
    with time_machine.travel(datetime.now(UTC), tick=False) as clock:
        a, b = scheduler("a"), scheduler("b")
        try:
            for _ in range(5):
                clock.shift(0.03)
                a.tick()
                b.tick()
            assert "test-often" in sent["a"]
            assert sent["b"] == []
            assert a.max_interval <= 10  # comes back within the lease to renew it
        finally:
            a.close()
        clock.shift(0.03)
        b.tick()
        b.tick()
        b.close()
    assert "test-often" in sent["b"]  # took over once the holder let go


# --- Database connections ----------------------------------------------------------------------


def _django(code: str, **env) -> subprocess.CompletedProcess:
    full = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "1",
        "DATABASE_URL": current_database_url(),
        **env,
    }
    full.pop("REDIS_URL", None)
    return subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", "import django; django.setup()\n" + code],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


POOL_CODE = """
from concurrent.futures import ThreadPoolExecutor
from django.db import connection, connections
from accounts.models import User

def one(_):
    try:
        return User.objects.count() >= 0
    finally:
        connections.close_all()

with ThreadPoolExecutor(8) as pool:
    ok = all(pool.map(one, range(40)))
pool = connection.pool
print(ok, type(pool).__name__, pool.max_size, connection.settings_dict["CONN_MAX_AGE"])
"""

PGBOUNCER_CODE = """
from django.db import connection
from accounts.models import User
rows = list(User.objects.values_list("pk", flat=True).iterator(chunk_size=2))
print(connection.settings_dict["DISABLE_SERVER_SIDE_CURSORS"],
      "options" in connection.settings_dict["OPTIONS"])
"""


@NEEDS_PG
@pytest.mark.django_db(transaction=True)
def test_with_a_pool_many_threads_share_a_bounded_set_of_connections():
    out = _django(POOL_CODE, DB_POOL_MAX_SIZE="4", DB_POOL_MIN_SIZE="1")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True", "ConnectionPool", "4", "0"]


@NEEDS_PG
@pytest.mark.django_db(transaction=True)
def test_behind_pgbouncer_no_server_side_cursor_and_no_startup_options():
    out = _django(PGBOUNCER_CODE, DB_PGBOUNCER="1")
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["True", "False"]


BINDING_CODE = """
from django.db import connection
from accounts.models import User
for _ in range(8):
    User.objects.filter(email="nobody@example.com").exists()
with connection.cursor() as cursor:
    cursor.execute("SELECT count(*) FROM pg_prepared_statements")
    prepared = cursor.fetchone()[0]
print(connection.settings_dict["OPTIONS"].get("server_side_binding", False), prepared > 0)
"""


@NEEDS_PG
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, ["True", "True"]),
        ({"DB_SERVER_SIDE_BINDING": "0"}, ["False", "False"]),
        ({"DB_PGBOUNCER": "1"}, ["False", "False"]),
    ],
    ids=["default", "off", "pgbouncer"],
)
def test_a_query_run_again_reuses_its_prepared_plan_unless_turned_off(env, expected):
    """Server-side binding: psycopg prepares a query run PG_PREPARE_THRESHOLD times, so
    PostgreSQL plans the hot paths' queries once per connection; never behind
    PgBouncer in transaction mode."""
    out = _django(BINDING_CODE, **env)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == expected


def test_a_pool_and_pgbouncer_together_are_refused():
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "1",
            "DATABASE_URL": "postgres://u@127.0.0.1:5432/x",
            "DB_POOL_MAX_SIZE": "4",
            "DB_PGBOUNCER": "1",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "DB_PGBOUNCER" in out.stderr


# --- Uploads in a shared store -----------------------------------------------------------------


@pytest.fixture
def s3_media(settings):
    from moto import mock_aws

    with mock_aws():
        import boto3

        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="emporion-media")
        settings.STORAGES = {
            **settings.STORAGES,
            "default": {
                "BACKEND": "storages.backends.s3.S3Storage",
                "OPTIONS": {
                    "bucket_name": "emporion-media",
                    "region_name": "us-east-1",
                    "access_key": "testing",
                    "secret_key": "testing",
                    "location": "media",
                    "default_acl": "private",
                    "querystring_auth": True,
                    "file_overwrite": False,
                },
            },
        }
        yield boto3.client("s3", region_name="us-east-1")


@pytest.mark.django_db
def test_uploaded_images_go_to_the_shared_store_not_local_disk(
    s3_media,
    manager_client,
    settings,
    tmp_path,
):
    settings.MEDIA_ROOT = tmp_path / "media"
    from tests.fixtures.store import API
    from tests.store.media.factories import image_bytes, upload

    response = manager_client.post(
        f"{API}/media",
        {"file": upload("photo.jpg", image_bytes("JPEG", (800, 600)))},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    keys = {
        item["Key"]
        for item in s3_media.list_objects_v2(Bucket="emporion-media").get("Contents", [])
    }
    assert any(key.startswith("media/store/") and key.endswith(".jpg") for key in keys), keys
    assert len(keys) > 1  # the original and its renditions
    assert "X-Amz-Signature=" in body["url"] or "Signature=" in body["url"]
    assert not (tmp_path / "media").exists()  # nothing on this machine's disk


def test_media_storage_s3_needs_a_bucket():
    out = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "1",
            "MEDIA_STORAGE": "s3",
            "AWS_STORAGE_BUCKET_NAME": "",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode != 0
    assert "AWS_STORAGE_BUCKET_NAME" in out.stderr


def test_with_s3_employee_documents_go_to_the_buckets_private_prefix():
    code = (
        "import django; django.setup()\n"
        "from erp.hr.models import EmployeeDocument\n"
        "storage = EmployeeDocument._meta.get_field('file').storage\n"
        "print(type(storage).__name__, storage.location, storage.querystring_auth, "
        "storage.custom_domain)"
    )
    out = subprocess.run(  # noqa: S603 - our own interpreter
        [sys.executable, "-c", code],
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "1",
            "MEDIA_STORAGE": "s3",
            "AWS_STORAGE_BUCKET_NAME": "emporion-media",
            "AWS_S3_CUSTOM_DOMAIN": "cdn.example.com",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["S3Storage", "private", "True", "None"]
