"""Marketplace sync's models."""
