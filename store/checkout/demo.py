"""Demo settings for the checkout (`manage.py seed_demo`, idempotent): the store's bank
details for bank transfers and its e-mail address for new-order notices."""

from __future__ import annotations

from store.settings import selectors as store_settings
from store.settings import services as settings_services

BANK = {
    "bank_transfer_account_name": "Emporion Demo Store",
    "bank_transfer_bank_name": "Demo Bank",
    "bank_transfer_iban": "GR16 0110 1250 0000 0001 2300 695",
    "bank_transfer_bic": "ETHNGRAA",
}


def seed() -> list[str]:
    payments = store_settings.get_section("payments")
    if not payments["bank_transfer_iban"]:
        settings_services.settings_update(section="payments", values=BANK)
    if not store_settings.get_value("general", "store_email"):
        settings_services.settings_update(
            section="general", values={"store_email": "orders@example.com"}
        )
    methods = [
        name
        for name in ("sandbox_card", "bank_transfer", "cash_on_delivery")
        if store_settings.get_value("payments", f"{name}_enabled")
    ]
    return [
        f"  Payment methods: {', '.join(methods)} (sandbox card 4242 4242 4242 4242; "
        "declined: 4000 0000 0000 0002)",
        "  New-order notices to orders@example.com; holds 10 min, unpaid card orders 60 min",
    ]
