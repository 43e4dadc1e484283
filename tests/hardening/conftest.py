# The store's fixtures (application-password clients per role, media under a temporary root).
from tests.store.conftest import (  # noqa: F401
    _media_root,
    admin_client_api,
    admin_user,
    anon,
    customer,
    customer_client,
    manager,
    manager_client,
    store_client,
)
