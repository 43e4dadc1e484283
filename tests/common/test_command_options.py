"""Every command of the project takes its options in any order: before or after its
positional arguments and, for `licenses`, before or after the job's name."""

import pytest
from django.core.management import get_commands, load_command_class

# command -> argument lists that must mean the same
ORDERS = {
    "licenses": [
        ["--no-progress", "-v", "0", "export", "--account", "a@example.com", "--format", "json"],
        ["export", "--account", "a@example.com", "--format", "json", "--no-progress", "-v", "0"],
        ["export", "--no-progress", "--format", "json", "-v", "0", "--account", "a@example.com"],
        ["-v", "0", "export", "--format", "json", "--account", "a@example.com", "--no-progress"],
    ],
    "createaccount": [
        ["a@example.com", "--password", "P", "--name", "N", "--type", "agency", "--staff"],
        ["--password", "P", "--staff", "a@example.com", "--type", "agency", "--name", "N"],
        ["--staff", "--type", "agency", "--name", "N", "--password", "P", "a@example.com"],
    ],
    "create_app_password": [
        ["a@example.com", "ERP sync", "-v", "0"],
        ["-v", "0", "a@example.com", "ERP sync"],
        ["a@example.com", "-v", "0", "ERP sync"],
    ],
    "seed_demo": [
        ["--force", "--base-url", "http://x.test", "-v", "0"],
        ["-v", "0", "--base-url", "http://x.test", "--force"],
    ],
    "regenerate_renditions": [
        ["1", "2", "-v", "0"],
        ["-v", "0", "1", "2"],
        ["1", "-v", "0", "2"],
    ],
    "load_eu_vat_rates": [
        ["--dry-run", "-v", "0"],
        ["-v", "0", "--dry-run"],
    ],
    "dispatch_webhooks": [["-v", "0"]],
    "courier_refresh_tracking": [
        ["--limit", "5", "--enqueue", "-v", "0"],
        ["-v", "0", "--enqueue", "--limit", "5"],
    ],
    "generate_feeds": [
        ["google", "skroutz", "--enqueue", "-v", "0"],
        ["--enqueue", "google", "-v", "0", "skroutz"],
        ["-v", "0", "google", "--enqueue", "skroutz"],
    ],
    "rebuild_report_rollups": [["-v", "0"]],
    "rebuild_account_balances": [["-v", "0"]],
    "rebuild_crm_rollups": [["-v", "0"]],
    "rebuild_stock_rollups": [["-v", "0"]],
    "rebuild_list_entries": [["--batch", "100", "-v", "0"], ["-v", "0", "--batch", "100"]],
    "record_api_examples": [
        ["--only", "portal", "store", "--operation", "a", "-v", "0"],
        ["-v", "0", "--operation", "a", "--only", "portal", "store"],
    ],
    "payment_sandbox_event": [
        ["stripe", "pi_1", "--type", "payment.failed", "--base-url", "http://x.test"],
        ["--type", "payment.failed", "stripe", "--base-url", "http://x.test", "pi_1"],
        ["--base-url", "http://x.test", "stripe", "pi_1", "--type", "payment.failed"],
    ],
}
PROJECT_APPS = ("accounts", "common", "licensing", "clients", "webhooks", "store", "erp")


def parsed(name: str, args: list[str]) -> dict:
    command = load_command_class(get_commands()[name], name)
    options = vars(command.create_parser("manage.py", name).parse_args(args))
    return {key: value for key, value in options.items() if key != "args"}


def test_every_project_command_is_covered():
    ours = {
        name
        for name, app in get_commands().items()
        if app.split(".")[0] in PROJECT_APPS or app.startswith(("store.", "erp."))
    }
    assert ours == set(ORDERS)


@pytest.mark.parametrize("name", sorted(ORDERS))
def test_options_in_any_order_mean_the_same(name):
    first, *others = ORDERS[name]
    expected = parsed(name, first)
    assert expected["verbosity"] in (0, 1)
    for args in others:
        assert parsed(name, args) == expected, args
