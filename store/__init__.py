"""The Commerce Store API (ec/v1): a package of Django apps, one per domain.

`store/common/` holds what every store app shares (base views, authentication, capabilities,
errors, pagination, query parameters, money, hooks); `store/urls.py` mounts each app's
`api/urls.py` under `/{REST_ROOT}/ec/v1/`.
"""
