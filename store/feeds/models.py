"""Marketplace feeds' models."""
