"""Reseller and agency sub-clients (their customers): models, services and portal endpoints."""
