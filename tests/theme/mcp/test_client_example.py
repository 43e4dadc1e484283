"""The docs' MCP client example (docs/examples/mcp_client.py), run as a reader runs it against
`make run`: its main() against the live test server holding the demo's data (seed_demo), as
the demo's administrator, with the settings read from the environment."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from accounts.models import AppPassword, User
from accounts.services import app_password_create
from store.orders.models import Order
from theme.mcp import selectors
from theme.mcp.api.server import ABILITIES

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.sqlite_only,  # the demo of `make run` (tests/fixtures/demo.py)
]

EXAMPLE = Path(settings.BASE_DIR) / "docs" / "examples" / "mcp_client.py"


@pytest.fixture
def example():
    """The example script as a module (it is a file of the docs, not a package)."""
    spec = importlib.util.spec_from_file_location("mcp_client_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def demo_server(seeded_demo, live_server, monkeypatch) -> str:
    """The demo's data behind a live server, and the environment of a reader who set only
    EMPORION_URL (the server's address)."""
    monkeypatch.setenv("EMPORION_URL", live_server.url)
    monkeypatch.delenv("EMPORION_EMAIL", raising=False)
    monkeypatch.delenv("EMPORION_APP_PASSWORD", raising=False)
    return live_server.url


def assert_shows_the_demo(out: str) -> None:
    """What the example printed: the server, every tool, and the two calls' answers as the
    store has them."""
    assert "Connected to emporion-store at " in out
    assert "(MCP 2026-07-28)" in out
    assert f"{len(ABILITIES)} tools:" in out
    for ability in ABILITIES:
        arguments = ", ".join(ability.input_schema["properties"])
        assert f"  {ability.name}({arguments}): {ability.title} (read-only)" in out
    found = selectors.search_products(query="tee", limit=5)
    assert found["products"], "the demo has tees"
    assert f'search_products {{"query": "tee", "limit": 5}}\n  {found["total"]} product(s)' in out
    for product in found["products"]:
        assert f"#{product['id']:<4} {product['title']}" in out
    listed = selectors.list_orders(status=None, date_from=None, date_to=None, page=1, per_page=5)
    assert listed["total"] == Order.objects.count() > 5
    assert f"{listed['total']} order(s), page 1 of {listed['total_pages']}" in out
    for order in listed["orders"]:
        assert f"#{order['id']:<4} {order['order_number']:<14} {order['status']}" in out
    assert "tool error" not in out
    assert "refused" not in out


def test_the_example_with_an_application_password_given(demo_server, example, capsys):
    admin = User.objects.get(email=example.DEMO_ADMIN)
    _record, password = app_password_create(user=admin, name="reader")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EMPORION_APP_PASSWORD", password)
        example.main()
    assert_shows_the_demo(capsys.readouterr().out)


def test_the_example_makes_its_application_password_with_manage_py(
    demo_server, example, capsys, monkeypatch
):
    """Without EMPORION_APP_PASSWORD the example runs the repository's `manage.py
    create_app_password` for the demo's administrator. The command runs here in-process, on
    the test database, with the arguments the example gave it."""
    runs = []

    def run(argv, *, cwd, env, capture_output, text, check):
        runs.append(argv)
        assert argv[:2] == [sys.executable, str(Path(settings.BASE_DIR) / "manage.py")]
        assert Path(cwd) == Path(settings.BASE_DIR)
        assert env["DEBUG"] == "1"
        out, err = StringIO(), StringIO()
        call_command(*argv[2:], stdout=out, stderr=err)
        return subprocess.CompletedProcess(argv, 0, out.getvalue(), err.getvalue())

    monkeypatch.setattr(subprocess, "run", run)
    example.main()
    assert_shows_the_demo(capsys.readouterr().out)
    assert runs == [
        [
            sys.executable,
            str(Path(settings.BASE_DIR) / "manage.py"),
            "create_app_password",
            "admin@example.com",
            example.PURPOSE,
        ]
    ]
    made = AppPassword.objects.get(name=example.PURPOSE)
    assert made.user.email == "admin@example.com"
    assert made.last_used_at is not None  # the example connected with it


def test_without_a_password_it_can_make_the_example_says_how_to_give_one(
    demo_server, example, monkeypatch
):
    def run(argv, **kwargs):
        return subprocess.CompletedProcess(argv, 1, "", "CommandError: No account.")

    monkeypatch.setattr(subprocess, "run", run)
    with pytest.raises(SystemExit) as stopped:
        example.main()
    assert "CommandError: No account." in str(stopped.value)
    assert "Set EMPORION_APP_PASSWORD" in str(stopped.value)


def test_a_wrong_password_or_no_server_is_one_line_not_a_traceback(demo_server, example):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EMPORION_APP_PASSWORD", "abcd efgh ijkl mnop qrst uvwx")
        with pytest.raises(SystemExit) as stopped:
            example.main()
    assert str(stopped.value) == (
        f"{demo_server} refused: Invalid e-mail or application password. "
        "{'status': 401, 'code': 'not_authenticated'}"
    )
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EMPORION_URL", closed)
        env.setenv("EMPORION_APP_PASSWORD", "abcd efgh ijkl mnop qrst uvwx")
        with pytest.raises(SystemExit) as stopped:
            example.main()
    assert str(stopped.value).startswith(f"No answer from {closed} (ConnectError(")
