"""The ERP surface: a package of Django apps behind the Business-tier licence gate."""
