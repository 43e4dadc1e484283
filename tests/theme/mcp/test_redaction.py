"""The one redaction function of the AI tool endpoint."""

from theme.mcp.redaction import REDACTED, redact


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
