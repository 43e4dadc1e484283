from tests.licensing.conftest import _media_root, events  # noqa: F401
