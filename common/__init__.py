"""Project-wide infrastructure: error styles, throttling, idempotency, e-mail, health."""
