"""The commerce store API (/{REST_ROOT}/ec/v1/...): a package of Django apps, one per domain."""
