from django.conf import settings
from django.db import models


class SettingsSection(models.Model):
    """One section of store settings: only the values set explicitly (the rest are defaults).

    The sections, their keys, types and defaults are declared in code
    (store.settings.registry); values are validated against them before they are stored.
    """

    name = models.SlugField(max_length=64, primary_key=True)
    values = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        verbose_name = "settings section"

    def __str__(self) -> str:
        return self.name
