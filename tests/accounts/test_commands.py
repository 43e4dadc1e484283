import re
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import User
from licensing.models import License, Product

pytestmark = pytest.mark.django_db


def test_createaccount_creates_a_verified_account(api_client):
    out = StringIO()
    call_command(
        "createaccount",
        "Partner@Example.com",
        "--password",
        "Partner-Secret-2026",
        "--name",
        "Partner Co",
        "--type",
        "reseller",
        stdout=out,
    )
    user = User.objects.get(email="partner@example.com")
    assert (user.name, user.type, user.email_verified) == ("Partner Co", "reseller", True)
    assert "Created reseller account partner@example.com" in out.getvalue()
    login = {"email": "partner@example.com", "password": "Partner-Secret-2026"}
    assert api_client.post("/api/v1/portal/auth/login", login, format="json").status_code == 200


def test_createaccount_refuses_a_duplicate():
    args = ["dup@example.com", "--password", "Partner-Secret-2026", "--name", "A"]
    call_command("createaccount", *args, stdout=StringIO())
    with pytest.raises(CommandError, match="already exists"):
        call_command("createaccount", *args, stdout=StringIO())
    assert User.objects.filter(email="dup@example.com").count() == 1


def test_createaccount_refuses_a_bad_type():
    with pytest.raises(CommandError, match="developer, reseller, agency"):
        call_command(
            "createaccount",
            "x@example.com",
            "--password",
            "Partner-Secret-2026",
            "--name",
            "X",
            "--type",
            "emperor",
            stdout=StringIO(),
        )
    assert not User.objects.exists()


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("short1", "This password is too short."),
        ("password123", "This password is too common."),
        ("83749201748", "This password is entirely numeric."),
        ("weak@example.com", "The password is too similar to the e-mail address."),
    ],
)
def test_createaccount_refuses_a_weak_password(password, message):
    with pytest.raises(CommandError) as refused:
        call_command(
            "createaccount",
            "weak@example.com",
            "--password",
            password,
            "--name",
            "W",
            stdout=StringIO(),
        )
    assert message in str(refused.value)
    assert "Nothing was created." in str(refused.value)
    assert not User.objects.exists()


def test_createaccount_refuses_an_address_that_is_not_one():
    with pytest.raises(CommandError, match=r"email: Enter a valid e-mail address\."):
        call_command(
            "createaccount",
            "not-an-address",
            "--password",
            "Partner-Secret-2026",
            "--name",
            "X",
            stdout=StringIO(),
        )
    assert not User.objects.exists()


def test_createaccount_makes_staff(client):
    call_command(
        "createaccount",
        "--staff",
        "--password",
        "Partner-Secret-2026",
        "ops@example.com",
        "--name",
        "Ops",
        stdout=StringIO(),
    )
    assert User.objects.get(email="ops@example.com").is_staff


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_createaccount_exits_non_zero_from_the_shell(tmp_path):
    """The real process: a bad type is a clear message on stderr and exit status 1."""
    env = {"PATH": "/usr/bin:/bin", "VAR_DIR": str(tmp_path), "DEBUG": "1"}
    result = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "createaccount",
            "x@example.com",
            "--password",
            "p",
            "--name",
            "X",
            "--type",
            "emperor",
        ],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "type" in result.stderr


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_seed_demo_again_changes_nothing_and_keeps_passwords_and_sessions(
    seeded_demo, api_client, client_for
):
    """`make run` seeds on every start: a second run must not log anybody out."""
    developer = User.objects.get(email="developer@example.com")
    portal = client_for(developer)
    reseller = User.objects.get(email="reseller@example.com")
    reseller.set_password("Changed-By-Hand-2026")
    reseller.save()
    browser = Client()
    browser.force_login(User.objects.get(email="admin@example.com"))
    hashes = dict(User.objects.values_list("email", "password"))

    out = StringIO()
    call_command("seed_demo", stdout=out)

    # The portal's four accounts, two products, five licences, and the ERP's:
    # the store's Business licence of its own product and the demo accountant.
    assert User.objects.count() == 5
    assert Product.objects.count() == 3
    assert License.objects.count() == 6
    assert dict(User.objects.values_list("email", "password")) == hashes
    assert portal.get("/api/v1/portal/auth/me").status_code == 200
    assert browser.get("/admin/").status_code == 200
    for email in ("developer@example.com", "agency@example.com", "admin@example.com"):
        login = {"email": email, "password": "emporion-demo-2026"}
        assert api_client.post("/api/v1/portal/auth/login", login, format="json").status_code == 200
    login = {"email": "reseller@example.com", "password": "Changed-By-Hand-2026"}
    assert api_client.post("/api/v1/portal/auth/login", login, format="json").status_code == 200
    admin = User.objects.get(email="admin@example.com")
    assert (admin.is_staff, admin.is_superuser) == (True, True)
    lines = out.getvalue().splitlines()
    assert any(re.match(r"\s+reseller@example.com\s+\(changed\)\s+reseller$", x) for x in lines)
    assert any(re.match(r"\s+agency@example.com\s+emporion-demo-2026\s+agency$", x) for x in lines)


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_seed_demo_prints_logins_and_urls_and_no_licence_list(seeded_demo):
    """What the first start of `make run` prints (its default base URL), and a later start's
    links on the base URL it is given."""
    text = seeded_demo
    assert "developer@example.com" in text
    assert "emporion-demo-2026" in text
    assert "http://127.0.0.1:8000/api/v1/docs/" in text
    assert "http://127.0.0.1:8000/admin/" in text
    assert License.objects.count() == 6  # five of the portal's demo, the store's ERP licence
    assert not re.search(r"EMP-[A-Z]{4}-", text)  # a count per account instead of every key
    assert (
        "  licences: agency@example.com 1, developer@example.com 2, reseller@example.com 2 "
        "(list them: GET /api/v1/portal/licenses, or the admin)"
    ) in text.splitlines()
    out = StringIO()
    call_command("seed_demo", "--base-url", "http://localhost:9000", stdout=out)
    assert "http://localhost:9000/api/v1/docs/" in out.getvalue()
    assert "http://localhost:9000/admin/" in out.getvalue()


def test_seed_demo_refuses_to_run_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo", stdout=StringIO())
    assert not User.objects.exists()
