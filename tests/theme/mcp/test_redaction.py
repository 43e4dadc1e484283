"""The one redaction function of the AI tool endpoint: personal data only, by what a record
is."""

from decimal import Decimal

from theme.mcp.redaction import REDACTED, person, redact


def test_personal_keys_are_redacted_whatever_their_shape():
    out = redact(
        {
            "email": "a@example.com",
            "first_name": "Ann",
            "Last_Name": "Lee",
            "phone": "+30 210 1234567",
            "billing_address": {"city": "Athens", "country": "GR"},
            "addresses": [{"street": "x"}],
            "customer": {"id": 3, "name": "Ann Lee", "company": "ACME"},
            "note": "",
            "title": "Lamp",
        }
    )
    assert out == {
        "email": REDACTED,
        "first_name": REDACTED,
        "Last_Name": REDACTED,
        "phone": REDACTED,
        "billing_address": REDACTED,
        "addresses": REDACTED,
        "customer": {"id": 3, "name": REDACTED, "company": REDACTED},
        "note": "",
        "title": "Lamp",
    }


def test_emails_and_phones_inside_free_text_are_redacted():
    text = "Write to j.doe+shop@mail.example.gr or call +30 (210) 123-4567 / 6912345678."
    out = redact({"description": text, "items": [text]})
    for secret in ("j.doe+shop@mail.example.gr", "123-4567", "6912345678"):
        assert secret not in out["description"]
        assert secret not in out["items"][0]
    assert out["description"].startswith("Write to [redacted] or call [redacted]")


def test_codes_amounts_dates_and_short_numbers_are_kept():
    value = {
        "sku": "LAMP-1",
        "ean": "5901234123457",
        "order_number": "20261124000123",
        "total": "1234567.89",
        "created_at": "2026-11-24T06:33:41Z",
        "date_from": "2026-11-01",
        "product_id": 12345678,
        "title": "Pack of 12 lamps, 2026 model",
        "quantity": 3,
        "enabled": True,
        "price": None,
    }
    assert redact(value) == value


def test_names_of_things_are_kept():
    value = {
        "name": "Desk lamp",
        "categories": [{"id": 1, "name": "Lighting", "slug": "lighting"}],
        "shipping_zone": {"id": 2, "name": "Greece", "city": "Athens"},
        "gateway": {"name": "Stripe", "display_name": "Card"},
        "period": {"name": "30d"},
        "warehouse": {"name": "Main", "address": "1 Port Road", "postcode": "18545"},
        "note": "Packed in two boxes",
    }
    assert redact(value) == value


def test_a_persons_record_loses_its_identity_and_keeps_its_figures():
    record = person(
        {
            "id": 7,
            "name": "Ann Lee",
            "display_name": "ann",
            "company": "ACME",
            "city": "Athens",
            "postcode": "10558",
            "country": "GR",
            "note": "VIP",
            "registered": True,
            "total_spent": Decimal("123456.78"),
            "orders": [{"id": 9, "items": [{"name": "Desk lamp"}]}],
        }
    )
    out = redact(record)
    assert type(out) is dict
    assert out == {
        "id": 7,
        "name": REDACTED,
        "display_name": REDACTED,
        "company": REDACTED,
        "city": REDACTED,
        "postcode": REDACTED,
        "country": "GR",
        "note": REDACTED,
        "registered": True,
        "total_spent": Decimal("123456.78"),
        # a record inside a person's is judged on its own: a product's name is shown
        "orders": [{"id": 9, "items": [{"name": "Desk lamp"}]}],
    }


def test_records_under_a_persons_key_are_a_persons():
    out = redact(
        {
            "employees": [{"id": 1, "name": "Bo Ek", "department": {"name": "Sales"}}],
            "user": {"id": 2, "username": "bo"},
            "actor": "bo@example.com",
            "customer": "Ann Lee",
            "title": "Report",
        }
    )
    assert out == {
        "employees": [{"id": 1, "name": REDACTED, "department": {"name": "Sales"}}],
        "user": {"id": 2, "username": REDACTED},
        "actor": REDACTED,
        "customer": REDACTED,
        "title": "Report",
    }


def test_amounts_are_numbers_not_phone_numbers():
    value = {
        "revenue": Decimal("12345678.90"),
        "refunds": Decimal("-100000.00"),
        "orders": 12345678,
    }
    assert redact(value) == value
