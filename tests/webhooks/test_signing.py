import datetime as dt
import decimal
import json
import uuid

import pytest

from webhooks import signing

GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_BODY = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_signature_matches_githubs_test_vector():
    assert signing.sign(GITHUB_SECRET, GITHUB_BODY) == GITHUB_SIGNATURE


def test_verify_accepts_the_right_signature_only():
    assert signing.verify(GITHUB_SECRET, GITHUB_BODY, GITHUB_SIGNATURE) is True
    assert signing.verify(GITHUB_SECRET, GITHUB_BODY + b" ", GITHUB_SIGNATURE) is False
    assert signing.verify("another secret", GITHUB_BODY, GITHUB_SIGNATURE) is False
    assert signing.verify(GITHUB_SECRET, GITHUB_BODY, GITHUB_SIGNATURE.upper()) is False
    assert signing.verify(GITHUB_SECRET, GITHUB_BODY, None) is False


def test_secrets_are_64_hex_characters_and_unique():
    made = {signing.new_secret() for _ in range(50)}
    assert len(made) == 50
    for secret in made:
        assert len(secret) == 64
        int(secret, 16)
        assert secret == secret.lower()


def test_body_is_event_timestamp_data_with_a_utc_offset():
    moment = dt.datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=dt.UTC)
    body = signing.build_body(
        event="license.created",
        moment=moment,
        data={
            "license_id": 7,
            "expires_at": dt.datetime(2027, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))),
            "price": decimal.Decimal("9.90"),
            "ref": uuid.UUID(int=1),
        },
    )
    assert body == (
        '{"event":"license.created","timestamp":"2026-03-04T05:06:07.891+00:00",'
        '"data":{"license_id":7,"expires_at":"2026-12-31T22:00:00.000+00:00","price":"9.90",'
        '"ref":"00000000-0000-0000-0000-000000000001"}}'
    )
    assert list(json.loads(body)) == ["event", "timestamp", "data"]


def test_body_refuses_data_it_cannot_write_exactly():
    with pytest.raises(TypeError, match="naive datetime"):
        signing.build_body(
            event="license.created",
            moment=dt.datetime.now(dt.UTC),
            data={"x": dt.datetime.now()},  # noqa: DTZ005
        )
    with pytest.raises(TypeError, match="object"):
        signing.build_body(
            event="license.created", moment=dt.datetime.now(dt.UTC), data={"x": object()}
        )


def test_headers(settings):
    body = b'{"event":"ping"}'
    headers = signing.headers(secret="k", body=body, event="ping", delivery_id=uuid.UUID(int=5))
    assert headers == {
        "Content-Type": "application/json",
        "User-Agent": "Emporion-Webhooks/1.0",
        "X-Hub-Event": "ping",
        "X-Hub-Signature-256": signing.sign("k", body),
        "X-Hub-Delivery": "00000000-0000-0000-0000-000000000005",
    }
