import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from accounts.models import User
from licensing.models import Product

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


@pytest.fixture
def debug_on(settings):
    settings.DEBUG = True  # pytest-django runs with DEBUG off; seed_demo is a development tool


@pytest.mark.usefixtures("debug_on")
def test_seed_demo_is_idempotent_and_its_logins_work(api_client):
    call_command("seed_demo", stdout=StringIO())
    call_command("seed_demo", stdout=StringIO())
    assert set(User.objects.values_list("type", flat=True)) == {"developer", "reseller", "agency"}
    assert User.objects.count() == 4
    assert Product.objects.count() == 2
    for email in ("developer@example.com", "reseller@example.com", "agency@example.com"):
        login = {"email": email, "password": "emporion-demo-2026"}
        assert api_client.post("/api/v1/portal/auth/login", login, format="json").status_code == 200
    admin = User.objects.get(email="admin@example.com")
    assert admin.is_staff
    assert admin.is_superuser


@pytest.mark.usefixtures("debug_on")
def test_seed_demo_prints_logins_and_urls():
    out = StringIO()
    call_command("seed_demo", "--base-url", "http://127.0.0.1:8000", stdout=out)
    text = out.getvalue()
    assert "developer@example.com" in text
    assert "emporion-demo-2026" in text
    assert "http://127.0.0.1:8000/api/v1/docs/" in text
    assert "http://127.0.0.1:8000/admin/" in text


def test_seed_demo_refuses_to_run_without_debug(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG"):
        call_command("seed_demo", stdout=StringIO())
    assert not User.objects.exists()
