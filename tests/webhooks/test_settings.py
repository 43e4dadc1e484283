"""WEBHOOKS_ALLOW_PRIVATE_URLS: off by default, strictly parsed, flagged by check --deploy."""

import secrets

import pytest

from tests.common.test_settings_env import read_settings, run_manage

# fresh processes in a clean environment: the embedded default whatever the pass
pytestmark = pytest.mark.sqlite_only

NAME = "WEBHOOKS_ALLOW_PRIVATE_URLS"


def test_private_urls_are_off_by_default_and_on_only_when_set(tmp_path):
    assert read_settings(NAME, env_overrides={}, tmp_path=tmp_path) == [False]
    on = {"WEBHOOKS_ALLOW_PRIVATE_URLS": "1"}
    assert read_settings(NAME, env_overrides=on, tmp_path=tmp_path) == [True]


def test_a_malformed_value_stops_the_process(tmp_path):
    result = run_manage(
        "check", env_overrides={"WEBHOOKS_ALLOW_PRIVATE_URLS": "maybe"}, tmp_path=tmp_path
    )
    assert result.returncode != 0
    assert "WEBHOOKS_ALLOW_PRIVATE_URLS" in result.stderr


@pytest.mark.parametrize("name", ["OUTBOUND_ALLOW_PRIVATE_URLS", "WEBHOOKS_ALLOW_PRIVATE_URLS"])
def test_check_deploy_warns_while_private_urls_are_allowed(tmp_path, name):
    result = run_manage(
        "check",
        "--deploy",
        "--tag",
        "webhooks",  # its own check only: the whole list is CI's and test_checks' part
        "--fail-level",
        "WARNING",
        env_overrides={
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "api.example.com",
            name: "1",
        },
        tmp_path=tmp_path,
    )
    assert result.returncode == 1
    assert "webhooks.W001" in result.stderr + result.stdout
    assert name in result.stderr + result.stdout
