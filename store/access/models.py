from django.db import models

from store.common.capabilities import CAPABILITIES


class Capability(models.Model):
    """Holds the store's capabilities as Django permissions (`store_access.<codename>`).

    No table: the model exists so that Django creates one permission per capability, which
    roles (groups) and users then hold. store.common.capabilities is the list.
    """

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [(c.codename, c.description) for c in CAPABILITIES]
        verbose_name_plural = "capabilities"

    def __str__(self) -> str:
        return "store capabilities"
