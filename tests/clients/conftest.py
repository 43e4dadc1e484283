from tests.licensing.conftest import events  # noqa: F401
