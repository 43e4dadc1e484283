"""The ten-line receiver of docs/api/portal.md works against the real sender."""

import http.server
import threading

import pytest
from django.conf import settings

from tests.webhooks.factories import WebhookFactory
from webhooks import services
from webhooks.models import DeliveryAttempt

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("allow_private")]

PLACEHOLDER = 'b"the secret from the create answer"'


def readme_receiver_code() -> list[str]:
    readme = (settings.BASE_DIR / "docs" / "api" / "portal.md").read_text()
    section = readme.split("## Receiving webhooks", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    return code.strip().splitlines()


def serve_readme_receiver(secret: str):
    lines = readme_receiver_code()
    assert lines[-1].endswith("serve_forever()")
    namespace: dict = {}
    exec("\n".join(lines[:-1]).replace(PLACEHOLDER, repr(secret.encode())), namespace)  # noqa: S102
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), namespace["Receiver"])
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server


def test_the_example_has_ten_lines_and_verifies_in_constant_time():
    lines = readme_receiver_code()
    assert len(lines) == 10
    assert PLACEHOLDER in "\n".join(lines)
    assert "hmac.compare_digest" in "\n".join(lines)


@pytest.mark.parametrize(("right_secret", "status"), [(True, 204), (False, 401)])
def test_the_example_accepts_signed_deliveries_and_refuses_others(
    on_commit, capsys, right_secret, status
):
    webhook = WebhookFactory(url="http://127.0.0.1:1/")
    server = serve_readme_receiver(webhook.secret if right_secret else "guess")
    try:
        webhook.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        webhook.save()
        with on_commit():
            (delivery,) = services.emit(webhook.account, "license.created", {"license_id": 1})
    finally:
        server.shutdown()
        server.server_close()
    log = DeliveryAttempt.objects.get()
    assert (log.status_code, log.success) == (status, right_secret)
    printed = capsys.readouterr().out
    assert (f"{delivery.uuid} license.created" in printed) is right_secret
