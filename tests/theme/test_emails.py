"""theme.emails: an app's e-mail type reads its built-in templates from the app's own folder,
and its variables always carry the store's."""

import pytest

from store.emails.types import CUSTOMER, STORE_VARIABLES
from theme.emails import FolderEmailType, template_context
from theme.modules.recover_cart import emails as module_emails
from theme.storefront import emails as storefront_emails


def email_type(folder, slug="welcome_back"):
    return FolderEmailType(
        folder=folder,
        slug=slug,
        title="Welcome back",
        description="A test type.",
        recipient=CUSTOMER,
        variables={**STORE_VARIABLES, "link": "A link."},
        about_order=False,
    )


def test_the_defaults_are_the_files_of_the_folder(tmp_path):
    (tmp_path / "welcome_back.subject.txt").write_text("  Hello from {{ store.name }}\n")
    (tmp_path / "welcome_back.html").write_text("<p>{{ link }}</p>\n")
    (tmp_path / "welcome_back.txt").write_text("{{ link }}\n")
    kind = email_type(tmp_path)
    assert kind.default("subject") == "Hello from {{ store.name }}"  # the subject is stripped
    assert kind.default("body_html") == "<p>{{ link }}</p>\n"
    assert kind.default("body_text") == "{{ link }}\n"


@pytest.mark.parametrize("folder", [None, "missing"])
def test_a_type_without_its_folder_is_refused(tmp_path, folder):
    with pytest.raises(ValueError, match="welcome_back needs its template folder"):
        email_type(None if folder is None else tmp_path / folder)


def test_the_apps_types_read_their_own_folders():
    assert module_emails.CART_RECOVERY.default("subject") == (
        "{{ store.name }}: your cart is waiting"
    )
    assert storefront_emails.NEWSLETTER_CONFIRM.default("subject") == (
        "Confirm your subscription to {{ store.name }}"
    )


def test_the_variables_carry_the_store_then_the_types_own():
    config = {"general": {"store_name": "Acme", "store_email": "shop@example.com"}}
    assert template_context(config=config, link="https://x.test/a", lifetime="48 hours") == {
        "store": {"name": "Acme", "email": "shop@example.com"},
        "link": "https://x.test/a",
        "lifetime": "48 hours",
    }
    assert module_emails.context(config=config, item_count=2, link="L", lifetime="1 hour") == {
        "store": {"name": "Acme", "email": "shop@example.com"},
        "item_count": 2,
        "link": "L",
        "lifetime": "1 hour",
    }
