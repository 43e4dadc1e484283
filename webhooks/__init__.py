"""Outbound webhooks: events, signing, Celery delivery and delivery logs."""
