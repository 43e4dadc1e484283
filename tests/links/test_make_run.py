"""`make run`: its links follow its HOST and PORT, and seed_demo leaves the demo logins on the
screen (its e-mails counted, not printed)."""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.core.management import CommandError, call_command

from common.management.commands.seed_demo import QUIET_LOGGERS, _quiet

LOGINS = "Demo logins (e-mail, password, role):"


@pytest.fixture
def site():
    """The suite's own FRONTEND_URL here: the seeded demo and what seed_demo printed are
    shared with other tests (tests/fixtures/demo.py), which expect the default's."""


def make_run(**variables: str) -> list[str]:
    """The commands `make run` would run (a dry run), from a shell without FRONTEND_URL."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    env = {k: v for k, v in os.environ.items() if k not in ("FRONTEND_URL", "HOST", "PORT")}
    args = [f"{name}={value}" for name, value in variables.items()]
    out = subprocess.run(  # noqa: S603 - our own Makefile, fixed arguments
        ["make", "-n", "run", *args],  # noqa: S607
        cwd=Path(django_settings.BASE_DIR),
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return [line for line in out.splitlines() if "manage.py" in line]


@pytest.mark.sqlite_only  # reads the Makefile: the same in every pass
@pytest.mark.parametrize(
    ("variables", "url"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"PORT": "8123"}, "http://127.0.0.1:8123"),
        ({"HOST": "0.0.0.0", "PORT": "8123"}, "http://127.0.0.1:8123"),  # noqa: S104
        ({"PORT": "8123", "FRONTEND_URL": "https://shop.example"}, "https://shop.example"),
    ],
)
def test_make_run_gives_every_command_the_links_of_its_host_and_port(variables, url):
    migrate, seed, serve = make_run(**variables)
    for command in (migrate, seed, serve):
        assert f"FRONTEND_URL='{url}' " in command
    assert migrate.endswith("manage.py migrate --noinput")
    assert seed.endswith(f"manage.py seed_demo --base-url '{url}'")
    host = variables.get("HOST", "127.0.0.1")
    assert serve.endswith(f"manage.py runserver {host}:{variables.get('PORT', '8000')}")


def test_the_emails_of_the_seeding_stay_off_the_console(settings, capsys):
    """On the console backend of `make run`, an e-mail the demo data send is kept in memory,
    and an eager task's "succeeded" line is not logged."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
    trace = logging.getLogger(QUIET_LOGGERS[0])
    level = trace.level
    with _quiet() as outbox:
        start = len(outbox)
        mail.send_mail("Your order", "http://shop.test/order", "shop@example.com", ["a@b.example"])
        assert not trace.isEnabledFor(logging.INFO)
        assert trace.isEnabledFor(logging.WARNING)
    assert [m.subject for m in outbox[start:]] == ["Your order"]
    assert capsys.readouterr().out == ""
    assert trace.level == level
    mail.send_mail("After", "body", "shop@example.com", ["a@b.example"])
    assert "Subject: After" in capsys.readouterr().out  # the console backend again


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_seed_demo_prints_the_logins_last_and_counts_its_emails(seeded_demo):
    lines = seeded_demo.splitlines()
    heading = lines.index(LOGINS)
    assert lines[heading + 1 :][:4] == [
        f"  {email:<24} emporion-demo-2026   {role}"
        for email, role in [
            ("admin@example.com", "admin (staff, superuser)"),
            ("developer@example.com", "developer"),
            ("reseller@example.com", "reseller"),
            ("agency@example.com", "agency"),
        ]
    ]
    assert lines[heading + 5].startswith("  Log in:  curl -X POST ")
    assert len(lines) == heading + 6  # nothing after the logins
    [emails] = [line for line in lines if line.startswith("E-mails:")]
    assert re.fullmatch(
        r"E-mails: [1-9]\d* sent by the demo's data, not printed \(the store's e-mail log: "
        r"https?://\S+/admin/store_emails/sentemail/\)\.",
        emails,
    )
    assert lines.index("URLs:") < lines.index(emails) < heading
    # no e-mail was printed: neither its headers nor its body
    assert not [line for line in lines if re.match(r"(Subject|Content-Type|To): ", line)]
    assert "Your order, at any time" not in seeded_demo


@pytest.mark.sqlite_only  # the demo of `make run`: one pass
@pytest.mark.django_db(transaction=True)
def test_seed_demo_links_everything_to_its_base_url(seeded_demo):
    """The URLs printed and the demo feeds' links (built with FRONTEND_URL) agree."""
    out = StringIO()
    call_command("seed_demo", "--base-url", "http://127.0.0.1:8123/", stdout=out)
    text = out.getvalue()
    assert "http://127.0.0.1:8123/admin/" in text
    feeds = re.findall(r"^    (\S+/feed\.xml\?token=\S+)$", text, re.MULTILINE)
    assert len(feeds) == 2
    assert all(url.startswith("http://127.0.0.1:8123/rest/ec/v1/") for url in feeds), feeds
    local = re.findall(r"https?://(?:127\.0\.0\.1|localhost|testserver)[^\s/]*/", text)
    assert set(local) == {"http://127.0.0.1:8123/"}, local


def test_seed_demo_refuses_a_base_url_that_cannot_start_a_link(settings):
    settings.DEBUG = True
    with pytest.raises(CommandError, match="does not start with http"):
        call_command("seed_demo", "--base-url", "127.0.0.1:8123", stdout=StringIO())
