"""`manage.py licenses`: create, revoke, export, import. Bad input changes nothing."""

import csv
import json
import os
import sys
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, ManagementUtility, call_command
from django.db import connections
from django.utils import timezone

from licensing.models import Activation, License, LicenseSource, LicenseStatus
from tests.accounts.factories import ResellerFactory, UserFactory
from tests.clients.factories import ClientFactory
from tests.licensing.factories import ActivationFactory, LicenseFactory, ProductFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("licenses", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


# --- create -----------------------------------------------------------------------------------


def test_create_many_licences(events):
    reseller = ResellerFactory(email="r@example.com")
    customer = ClientFactory(owner=reseller, email="c@customer.example")
    ProductFactory(slug="theme")
    output = run(
        "create",
        "--account",
        "R@example.com",
        "--product",
        "theme",
        "--count",
        "150",
        "--source",
        "nfr",
        "--customer",
        "c@customer.example",
        "--expires-at",
        "2030-01-31",
    )
    assert "Created 150 starter licence(s) of theme for r@example.com." in output
    rows = License.objects.filter(owner=reseller)
    assert rows.count() == 150
    assert set(rows.values_list("source", "customer_id", "expires_at").distinct()) == {
        ("nfr", customer.pk, datetime(2030, 1, 31, tzinfo=UTC))
    }
    assert len(events) == 150


def test_create_prints_the_keys_of_small_batches():
    UserFactory(email="d@example.com")
    ProductFactory(slug="theme")
    output = run("create", "--account", "d@example.com", "--product", "theme", "--count", "2")
    keys = set(License.objects.values_list("license_key", flat=True))
    assert set(output.splitlines()[:2]) == keys


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--account", "nobody@example.com", "--product", "theme"], "No account"),
        (["--account", "d@example.com", "--product", "nope"], "No product"),
        (["--account", "d@example.com", "--product", "theme", "--count", "0"], "at least 1"),
        (["--account", "d@example.com", "--product", "theme", "--expires-at", "soon"], "ISO"),
        (
            ["--account", "d@example.com", "--product", "theme", "--expires-at", "2001-01-01"],
            "future",
        ),
        (
            ["--account", "d@example.com", "--product", "theme", "--tier", "business"],
            "Business Bundle",
        ),
        (["--account", "d@example.com", "--product", "theme", "--customer", "7"], "no client"),
    ],
)
def test_create_refuses_bad_input(args, message):
    UserFactory(email="d@example.com")
    ProductFactory(slug="theme")
    with pytest.raises(CommandError, match=message):
        run("create", *args)
    assert License.objects.count() == 0


# --- revoke -----------------------------------------------------------------------------------


def test_revoke_by_ids(events):
    first, second = LicenseFactory(), LicenseFactory()
    already = LicenseFactory(status=LicenseStatus.REVOKED)
    ActivationFactory(license=first, domain="a.com")
    output = run("revoke", "--ids", f"{first.pk}, {second.pk},{already.pk}")
    assert "Revoked 2 licence(s); 1 were already revoked." in output
    assert set(License.objects.values_list("status", flat=True)) == {"revoked"}
    assert Activation.objects.count() == 0
    assert [e for _a, e, _d in events] == ["license.revoked", "license.revoked"]


def test_revoke_from_a_file_of_ids_and_keys(tmp_path):
    first, second, kept = LicenseFactory(), LicenseFactory(), LicenseFactory()
    path = tmp_path / "revoke.txt"
    path.write_text(f"{first.pk}\n{second.license_key.lower()}\n\n")
    assert "Revoked 2" in run("revoke", "--file", str(path))
    assert License.objects.get(pk=kept.pk).status == "active"


def test_revoke_an_account_and_expired_before():
    owner = UserFactory(email="o@example.com")
    old = LicenseFactory(owner=owner, expires_at=timezone.now() - timedelta(days=40))
    recent = LicenseFactory(owner=owner)
    other = LicenseFactory(expires_at=timezone.now() - timedelta(days=40))
    cutoff = (timezone.now() - timedelta(days=30)).date().isoformat()
    assert "Revoked 1" in run("revoke", "--account", "o@example.com", "--expired-before", cutoff)
    assert [License.objects.get(pk=x.pk).status for x in (old, recent, other)] == [
        "revoked",
        "active",
        "active",
    ]
    assert "Revoked 1" in run("revoke", "--account", "o@example.com")


def test_revoke_dry_run_changes_nothing(events):
    license = LicenseFactory()
    output = run("revoke", "--ids", str(license.pk), "--dry-run")
    assert "Dry run: would revoke 1 licence(s)" in output
    assert License.objects.get().status == "active"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Say what to revoke"),
        (["--ids", "{id},999999"], "do not exist: 999999"),
        (["--ids", "EMP-NOT-THERE"], "do not exist"),
        (["--account", "ghost@example.com"], "No account"),
        (["--file", "/nonexistent/file.txt"], "Cannot read"),
        (["--expired-before", "yesterday"], "ISO"),
    ],
)
def test_revoke_refuses_bad_input(args, message):
    license = LicenseFactory()
    args = [arg.replace("{id}", str(license.pk)) for arg in args]
    with pytest.raises(CommandError, match=message):
        run("revoke", *args)
    assert License.objects.get().status == "active"


# --- export and import ------------------------------------------------------------------------


@pytest.fixture
def account():
    owner = ResellerFactory(email="x@example.com")
    customer = ClientFactory(owner=owner, email="c@customer.example")
    product = ProductFactory(slug="theme")
    first = LicenseFactory(owner=owner, product=product, customer=customer)
    ActivationFactory(license=first, domain="b.com")
    ActivationFactory(license=first, domain="a.com")
    LicenseFactory(owner=owner, product=product, status=LicenseStatus.REVOKED)
    LicenseFactory(product=product)  # another account's
    return owner


def test_export_csv(account, tmp_path):
    path = tmp_path / "out.csv"
    output = run("export", "--account", "x@example.com", "--output", str(path))
    assert f"Exported 2 licence(s) of x@example.com to {path}." in output
    rows = list(csv.DictReader(path.open()))
    first = License.objects.filter(owner=account).order_by("pk").first()
    assert [row["license_key"] for row in rows] == list(
        License.objects.filter(owner=account).order_by("pk").values_list("license_key", flat=True)
    )
    assert rows[0] == {
        "id": str(first.pk),
        "license_key": first.license_key,
        "product": "theme",
        "tier": "starter",
        "status": "active",
        "source": "individual",
        "expires_at": first.expires_at.isoformat(),
        "customer_id": str(first.customer_id),
        "customer_email": "c@customer.example",
        "domains": "a.com;b.com",
        "invoiced_at": "",
        "created_at": first.created_at.isoformat(),
    }
    assert rows[1]["status"] == "revoked"


def test_export_json_to_stdout(account):
    data = json.loads(run("export", "--account", "x@example.com", "--format", "json"))
    assert [item["status"] for item in data] == ["active", "revoked"]
    assert data[0]["domains"] == ["a.com", "b.com"]


def test_export_then_import_elsewhere_and_again(account, tmp_path, events):
    path = tmp_path / "out.csv"
    run("export", "--account", "x@example.com", "--output", str(path))
    # Keys of one account cannot be imported into another.
    UserFactory(email="y@example.com")
    foreign = tmp_path / "foreign.csv"
    key = License.objects.filter(owner=account).first().license_key
    write_csv(foreign, [{"license_key": key, "product": "theme"}])
    with pytest.raises(CommandError, match=f"belong to another account: {key}"):
        run("import", str(foreign), "--account", "y@example.com")
    # Into the same account it is idempotent: everything exists already.
    output = run("import", str(path), "--account", "x@example.com")
    assert "Imported 0 licence(s) for x@example.com; skipped 2 that exist." in output
    assert License.objects.count() == 3
    assert events == []


def write_csv(path, rows):
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(
            handle,
            fieldnames=[
                "license_key",
                "product",
                "tier",
                "status",
                "source",
                "expires_at",
                "customer_email",
            ],
        )
        writer.writeheader()
        writer.writerows(rows)


def test_import_creates_new_keys_and_skips_existing(account, tmp_path, events):
    existing = License.objects.filter(owner=account).first()
    path = tmp_path / "in.csv"
    write_csv(
        path,
        [
            {
                "license_key": "legacy-0001-abcd",
                "product": "theme",
                "expires_at": "2030-05-01",
                "customer_email": "c@customer.example",
                "source": "commitment",
            },
            {"license_key": existing.license_key, "product": "theme"},
            {"license_key": "LEGACY-0002-OLD", "product": "theme", "expires_at": "2020-01-01"},
        ],
    )
    dry = run("import", str(path), "--account", "x@example.com", "--dry-run")
    assert "Dry run: would create 2 licence(s), skip 1 existing." in dry
    assert License.objects.count() == 3
    events.clear()  # the dry run's events were published in the transaction it rolled back
    output = run("import", str(path), "--account", "x@example.com")
    assert "Imported 2 licence(s) for x@example.com; skipped 1 that exist." in output
    new = License.objects.get(license_key="LEGACY-0001-ABCD")
    assert (new.owner, new.source, new.customer.email, new.status) == (
        account,
        "commitment",
        "c@customer.example",
        "active",
    )
    assert new.expires_at == datetime(2030, 5, 1, tzinfo=UTC)
    assert License.objects.get(license_key="LEGACY-0002-OLD").status == "expired"
    assert [e for _a, e, _d in events if e == "license.created"] == ["license.created"] * 2
    again = run("import", str(path), "--account", "x@example.com")
    assert "Imported 0 licence(s)" in again


def test_import_with_bad_rows_imports_nothing(account, tmp_path):
    path = tmp_path / "bad.csv"
    write_csv(
        path,
        [
            {"license_key": "GOOD-KEY-0001", "product": "theme"},
            {"license_key": "x", "product": "nope", "tier": "gold"},
            {"license_key": "GOOD-KEY-0001", "product": "theme", "customer_email": "who@x.example"},
        ],
    )
    with pytest.raises(CommandError) as error:
        run("import", str(path), "--account", "x@example.com")
    message = str(error.value)
    assert "2 bad row(s)" in message
    assert "line 3: license_key must be" in message
    assert "unknown product 'nope'" in message
    assert "line 4: license_key GOOD-KEY-0001 appears twice" in message
    assert "has no client who@x.example" in message
    assert License.objects.count() == 3


def test_import_needs_the_key_and_product_columns(account, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("key,name\nA,B\n")
    with pytest.raises(CommandError, match="license_key and product"):
        run("import", str(path), "--account", "x@example.com")


def test_nfr_source_is_exempt_from_the_usage_count(client_for):
    owner = UserFactory(email="n@example.com")
    ProductFactory(slug="theme")
    run("create", "--account", "n@example.com", "--product", "theme", "--source", LicenseSource.NFR)
    assert client_for(owner).get("/api/v1/portal/licenses/usage").json()["total_licenses"] == 0


# --- Options, progress, pipes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--no-progress", "export", "--account", "x@example.com", "--format", "json"],
        ["export", "--account", "x@example.com", "--format", "json", "--no-progress"],
        ["export", "--no-progress", "--account", "x@example.com", "--format", "json"],
        ["export", "--account", "x@example.com", "--format", "json", "-v", "0"],
        ["-v", "0", "export", "--format", "json", "--account", "x@example.com"],
    ],
)
def test_options_go_before_or_after_the_job(account, args):
    data = json.loads(run(*args))
    assert [item["status"] for item in data] == ["active", "revoked"]


class Terminal(StringIO):
    """A standard error that says it is a terminal, so the progress bar shows."""

    def isatty(self) -> bool:
        return True


def bar_of(monkeypatch, *args) -> str:
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    call_command("licenses", *args, stdout=StringIO(), stderr=StringIO())
    return terminal.getvalue()


def test_progress_bars_count_licences_not_batches(monkeypatch, tmp_path):
    UserFactory(email="d@example.com")
    ProductFactory(slug="theme")
    created = bar_of(
        monkeypatch, "create", "--account", "d@example.com", "--product", "theme", "--count", "150"
    )
    assert "150/150" in created
    assert "licence" in created
    ids = ",".join(str(pk) for pk in License.objects.values_list("pk", flat=True)[:120])
    assert "120/120" in bar_of(monkeypatch, "revoke", "--ids", ids)
    path = tmp_path / "out.csv"
    assert "150/150" in bar_of(
        monkeypatch, "export", "--account", "d@example.com", "--output", str(path)
    )
    UserFactory(email="e@example.com")
    rows = [{"license_key": f"IMPORTED-{n:04d}", "product": "theme"} for n in range(130)]
    write_csv(tmp_path / "in.csv", rows)
    assert "130/130" in bar_of(
        monkeypatch, "import", str(tmp_path / "in.csv"), "--account", "e@example.com"
    )
    assert bar_of(monkeypatch, "--no-progress", "export", "--account", "d@example.com") == ""


class ClosedPipe(StringIO):
    """A standard output whose reader went away (`| head`) after a few lines."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def write(self, text: str) -> int:
        if self.tell() > 200:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)

    def fileno(self) -> int:
        return self.fd


def test_a_reader_that_stops_early_ends_the_export_quietly(account, monkeypatch, tmp_path):
    for _ in range(5):
        LicenseFactory(owner=account)
    fd = os.open(tmp_path / "stdout", os.O_WRONLY | os.O_CREAT)
    pipe, errors = ClosedPipe(fd), StringIO()
    monkeypatch.setattr(sys, "stdout", pipe)
    monkeypatch.setattr(sys, "stderr", errors)
    monkeypatch.setattr(connections, "close_all", lambda: None)  # the test's transaction stays
    with pytest.raises(SystemExit) as ended:
        ManagementUtility(
            ["manage.py", "licenses", "export", "--account", "x@example.com"]
        ).execute()
    assert ended.value.code == 0
    assert errors.getvalue() == ""  # no traceback
    assert pipe.getvalue().startswith("id,license_key,")
    os.close(fd)
