"""Demo store settings: the API description and its playground are on, to try every route."""

from store.settings import services


def seed() -> list[str]:
    services.settings_update(
        section="developer", values={"api_docs_enabled": True, "api_playground_enabled": True}
    )
    return ["  developer.api_docs_enabled and developer.api_playground_enabled: on"]
