"""`manage.py check --deploy` knows this project (common.checks); DEBUG is off unless set."""

import re
import secrets
import subprocess

import pytest
from django.conf import settings as django_settings
from django.core.checks import Error, Warning, run_checks

from tests.common.test_settings_env import read_settings, run_manage

STRONG_KEY = "Vq3-xT9_mLr2Kd8ZpA0wYb7NcE4uHj6GsF1oQiW5tRzX"


# The tags the project's checks are registered under (common/checks.py). Running only these
# leaves out the checks of other concerns (drf-spectacular's builds the whole API description,
# a fifth of a second a run); the real `check --deploy` at the end of this module runs them all.
PROJECT_TAGS = ["security", "caches"]


def deploy_messages(**kwargs) -> list:
    return run_checks(include_deployment_checks=True, tags=PROJECT_TAGS, **kwargs)


def deploy_ids() -> set[str]:
    return {message.id for message in deploy_messages()}


@pytest.fixture
def production(settings):
    """A correct production configuration, as docs/operations.md's checklist sets it."""
    settings.DEBUG = False
    settings.SECRET_KEY = secrets.token_urlsafe(64)
    settings.SIMPLE_JWT = {**settings.SIMPLE_JWT, "SIGNING_KEY": STRONG_KEY}
    settings.REDIS_URL = "redis://redis.internal:6379/0"
    settings.PAYMENT_SANDBOX_ALLOWED = False
    settings.FRONTEND_URL = "https://shop.example.com"
    return settings


def test_a_correct_production_passes_the_project_checks(production):
    assert not {i for i in deploy_ids() if i.startswith("common.")}


@pytest.mark.parametrize(
    ("key", "check_id"),
    [
        (None, "common.E001"),  # unset: tokens would be signed with SECRET_KEY
        ("secret", "common.E002"),
        ("your-256-bit-secret", "common.E002"),  # jwt.io's example
        ("Change Me", "common.E002"),
        ("s3cr3t-but-short-8fA", "common.E002"),  # 20 characters
        ("a" * 64, "common.E002"),  # long, but no variety
        ("abab" * 16, "common.E002"),
        ("django-insecure-" + STRONG_KEY, "common.E002"),
        ("development key", "common.E002"),
    ],
)
def test_a_weak_or_default_jwt_signing_key_fails(production, key, check_id):
    if key is None:
        key = production.SECRET_KEY
    elif key == "development key":
        key = django_settings.DEVELOPMENT_SECRET_KEY
    production.SIMPLE_JWT = {**production.SIMPLE_JWT, "SIGNING_KEY": key}
    found = [m for m in deploy_messages() if m.id == check_id]
    assert len(found) == 1
    assert isinstance(found[0], Error)
    assert "JWT_SIGNING_KEY" in found[0].msg


@pytest.mark.parametrize(
    "make_key",
    [
        lambda: secrets.token_urlsafe(32),
        lambda: secrets.token_urlsafe(64),
        lambda: secrets.token_hex(32),
        lambda: "correct horse battery staple, then a walrus on the 9:14 ferry",
    ],
    ids=["urlsafe-32", "urlsafe-64", "hex-32", "passphrase"],
)
def test_a_strong_jwt_signing_key_passes(production, make_key):
    key = make_key()
    production.SIMPLE_JWT = {**production.SIMPLE_JWT, "SIGNING_KEY": key}
    assert not {"common.E001", "common.E002"} & deploy_ids()


def test_production_without_redis_fails(production):
    production.REDIS_URL = ""
    found = [m for m in deploy_messages() if m.id == "common.E003"]
    assert len(found) == 1
    assert isinstance(found[0], Error)
    production.DEBUG = True  # development: local memory and eager tasks are the design
    assert "common.E003" not in deploy_ids()


def test_the_payment_sandbox_without_debug_fails(production):
    production.PAYMENT_SANDBOX_ALLOWED = True
    found = [m for m in deploy_messages() if m.id == "common.E004"]
    assert len(found) == 1
    assert isinstance(found[0], Error)
    production.DEBUG = True
    assert "common.E004" not in deploy_ids()


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8000", "https://localhost", "http://shop.example.com"]
)
def test_e_mail_links_to_this_machine_or_over_http_warn(production, url):
    production.FRONTEND_URL = url
    found = [m for m in deploy_messages() if m.id == "common.W001"]
    assert len(found) == 1
    assert isinstance(found[0], Warning)


def test_the_project_checks_run_only_with_deploy(production):
    production.REDIS_URL = ""
    production.PAYMENT_SANDBOX_ALLOWED = True
    production.SIMPLE_JWT = {**production.SIMPLE_JWT, "SIGNING_KEY": "secret"}
    assert not {m.id for m in run_checks(tags=PROJECT_TAGS) if m.id.startswith("common.")}


# --- The real process: what the environment gives --------------------------------------------

PRODUCTION_ENV = {
    "DEBUG": None,  # unset: off
    "SECRET_KEY": secrets.token_urlsafe(64),
    "JWT_SIGNING_KEY": secrets.token_urlsafe(64),
    "ALLOWED_HOSTS": "api.example.com",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "FRONTEND_URL": "https://api.example.com",
}


def deploy_check(tmp_path, *tags, **env) -> subprocess.CompletedProcess:
    """`check --deploy` in a fresh process; `tags` limits it to the project's own checks (the
    URL and model checks load every view: two seconds a run)."""
    tag_args = [arg for tag in tags for arg in ("--tag", tag)]
    return run_manage(
        "check",
        "--deploy",
        *tag_args,
        "--fail-level",
        "WARNING",
        env_overrides=env,
        tmp_path=tmp_path,
    )


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_check_deploy_is_clean_with_the_production_variables(tmp_path):
    result = deploy_check(tmp_path, **PRODUCTION_ENV)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
@pytest.mark.parametrize(
    ("changes", "check_ids"),
    [
        # independent mistakes, one process: each check reports its own (the in-process tests
        # above take them one by one); the two JWT key mistakes exclude each other
        (
            {"JWT_SIGNING_KEY": "", "REDIS_URL": "", "PAYMENT_SANDBOX_ALLOWED": "1"},
            {"common.E001", "common.E003", "common.E004"},
        ),
        ({"JWT_SIGNING_KEY": "changeme"}, {"common.E002"}),
    ],
)
def test_check_deploy_fails_on_each_production_mistake(tmp_path, changes, check_ids):
    result = deploy_check(tmp_path, "security", "caches", **{**PRODUCTION_ENV, **changes})
    assert result.returncode == 1
    reported = set(re.findall(r"common\.E\d{3}", result.stderr))
    assert reported == check_ids, result.stderr


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_debug_is_off_unless_set(tmp_path):
    """Without DEBUG in the environment the process is a production one: it refuses to start
    on the development SECRET_KEY, and starts with DEBUG off given a key of its own."""
    refused = run_manage("check", env_overrides={"DEBUG": None}, tmp_path=tmp_path)
    assert refused.returncode == 1
    assert "DEBUG is off but SECRET_KEY is unset" in refused.stderr
    shown = read_settings(
        "DEBUG",
        "SECURE_SSL_REDIRECT",
        env_overrides={"DEBUG": None, "SECRET_KEY": secrets.token_urlsafe(64)},
        tmp_path=tmp_path,
    )
    assert shown == [False, True]


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_make_run_turns_debug_on():
    result = subprocess.run(
        ["make", "-n", "run", "check-migrations"],  # noqa: S607 - the project's Makefile
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    commands = [line for line in result.stdout.splitlines() if "manage.py" in line]
    assert len(commands) == 4
    assert all(line.startswith("DEBUG=1 ") for line in commands), commands
