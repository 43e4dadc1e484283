BASE = "/rest/theme/v1"


def error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    assert set(body) == {"code", "message", "data"}, body
    assert body["data"]["status"] == status
    if code is not None:
        assert body["code"] == code, body
    return body


def limit(settings, scope: str, rate: str) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            scope: rate,
        },
    }
