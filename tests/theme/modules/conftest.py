import pytest

from tests.theme.storefront.conftest import BASE, error, limit  # noqa: F401


@pytest.fixture(autouse=True)
def _all_modules_on(settings):
    settings.THEME_MODULES = list(settings.THEME_MODULES_ALL)


def modules_off(settings, *names: str) -> None:
    settings.THEME_MODULES = [m for m in settings.THEME_MODULES_ALL if m not in names]
