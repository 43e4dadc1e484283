"""Settings come from the environment, strictly; production refuses the development key."""

import ast
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_int, env_list


def _environment(env_overrides, tmp_path) -> dict[str, str]:
    """A clean environment: the development one (DEBUG=1) plus `env_overrides`; an override of
    None unsets the variable."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key in {"PATH", "HOME", "LANG", "PYTHONPATH"}
    }
    env.update({"VAR_DIR": str(tmp_path), "DEBUG": "1", **env_overrides})
    return {key: value for key, value in env.items() if value is not None}


def _python(arguments, env_overrides, tmp_path, timeout):
    """A fresh interpreter with `arguments` in the project's directory and a clean environment
    (see `_environment`)."""
    return subprocess.run(  # noqa: S603
        [sys.executable, *arguments],
        cwd=settings.BASE_DIR,
        env=_environment(env_overrides, tmp_path),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run_manage(*args, env_overrides, tmp_path):
    """`manage.py *args` in a clean environment (see `_environment`)."""
    return _python(["manage.py", *args], env_overrides, tmp_path, timeout=120)


def read_settings(*names, env_overrides, tmp_path) -> list:
    """The values of the project's settings `names` as a fresh process reads them from a clean
    environment (see `_environment`): the settings module alone, without setting Django up."""
    script = (
        f"import config.settings as s; print(repr([getattr(s, name) for name in {list(names)!r}]))"
    )
    result = _python(["-c", script], env_overrides, tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("raw", "expected"), [("1", True), ("yes", True), ("off", False), ("", True)]
)
def test_env_bool(monkeypatch, raw, expected):
    monkeypatch.setenv("SOME_FLAG", raw)
    assert env_bool("SOME_FLAG", True) is expected


def test_env_bool_rejects_nonsense(monkeypatch):
    monkeypatch.setenv("SOME_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="SOME_FLAG"):
        env_bool("SOME_FLAG", False)


def test_env_int(monkeypatch):
    monkeypatch.setenv("SOME_INT", "12")
    assert env_int("SOME_INT", 0) == 12
    monkeypatch.setenv("SOME_INT", "twelve")
    with pytest.raises(ImproperlyConfigured, match="SOME_INT"):
        env_int("SOME_INT", 0)
    monkeypatch.setenv("SOME_INT", "-1")
    with pytest.raises(ImproperlyConfigured, match="at least 0"):
        env_int("SOME_INT", 0, minimum=0)


def test_env_list(monkeypatch):
    monkeypatch.setenv("SOME_LIST", " a.example.com, ,b.example.com ")
    assert env_list("SOME_LIST", []) == ["a.example.com", "b.example.com"]
    monkeypatch.delenv("SOME_LIST")
    assert env_list("SOME_LIST", ["x"]) == ["x"]


def test_embedded_defaults():
    assert settings.REST_ROOT == "rest"
    assert settings.SIMPLE_JWT["ACCESS_TOKEN_LIFETIME"].total_seconds() == 1800
    if not os.environ.get("DATABASE_URL"):
        assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    if not os.environ.get("REDIS_URL"):
        assert settings.CELERY_TASK_ALWAYS_EAGER is True
        assert settings.CACHES["default"]["BACKEND"].endswith("LocMemCache")


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_without_debug_the_development_secret_key_is_refused(tmp_path):
    result = run_manage("check", env_overrides={"DEBUG": "0"}, tmp_path=tmp_path)
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.sqlite_only  # a fresh process in a clean environment: the same in every pass
def test_a_malformed_variable_stops_the_process(tmp_path):
    result = run_manage("check", env_overrides={"NUM_PROXIES": "two"}, tmp_path=tmp_path)
    assert result.returncode != 0
    assert "NUM_PROXIES" in result.stderr
