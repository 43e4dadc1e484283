"""Integrations: small apps that bridge packages which must not know each other.

`integrations.store_webhooks` serves the store's webhooks (/rest/ec/v1/webhooks): the store's
view kernel (store.common) over the webhooks app's services; neither of those imports the other
(.importlinter).
"""
